// Compat: the context-engine plugin (the packed package, compat/pack.mjs) inside the real openclaw
// 2026.9.x under Node 24: OpenClaw's own plugin loader discovers the package root (openclaw.plugin.json
// + package.json openclaw.extensions) from plugins.load.paths and loads the compiled bundle; OpenClaw's
// context-engine registry resolves the engine selected by plugins.slots.contextEngine; the
// engine is then driven through assemble/afterTurn/compact, where compact() reaches OpenClaw's
// real delegateCompactionToRuntime (imported by the plugin as openclaw/plugin-sdk/core). The
// agent tools (artifact_fetch, context_search) pass OpenClaw's contracts.tools check and come to
// a run through OpenClaw's own resolvePluginTools.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { importSourceFile, OPENCLAW_VERSION } from "./openclaw-internals.mjs";
import { checkpointTriggers } from "./fixtures/checkpoints.mjs";

import { packedPluginRoot } from "./fixtures/plugin-root.mjs";
const KEY = "agent:main:telegram:direct:42";

const user = (text, t) => ({ role: "user", content: text, timestamp: t });
const assistant = (text, t, input) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "openai-responses",
  provider: "scripted",
  model: "scripted",
  usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  stopReason: "stop",
  timestamp: t,
});

describe(`openclaw@${OPENCLAW_VERSION}: the context-manager context-engine plugin`, () => {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-compat-oc-"));
  process.env.OPENCLAW_STATE_DIR = stateDir; // OpenClaw's own state stays in the temp dir too
  after(() => rmSync(stateDir, { recursive: true, force: true }));
  const config = {
    plugins: {
      load: { paths: [packedPluginRoot()] },
      allow: ["context-manager"],
      slots: { contextEngine: "context-manager" },
      entries: { "context-manager": { enabled: true, config: { stateDir } } },
    },
  };
  let engine;

  it("loads through OpenClaw's plugin loader and registers the context engine", async () => {
    const { loadAndActivateRootPluginRegistry } = await importSourceFile("src/plugins/loader.ts", ["loadAndActivateRootPluginRegistry"]);
    const registry = loadAndActivateRootPluginRegistry({ config, workspaceDir: stateDir, throwOnLoadError: true, onlyPluginIds: ["context-manager"] });
    const record = registry.plugins.find((p) => p.id === "context-manager");
    assert.ok(record, "plugin discovered from plugins.load.paths");
    assert.equal(record.status, "loaded", JSON.stringify(record.error ?? record));
    assert.deepEqual([record.kind].flat(), ["context-engine"]);
    assert.deepEqual(record.contextEngineIds, ["context-manager"]);
    assert.ok(registry.contextEngines.has("context-manager"));
    // the agent tools pass OpenClaw's contracts.tools check (the manifest declares them)
    assert.deepEqual(registry.tools.filter((t) => t.pluginId === "context-manager").flatMap((t) => t.names).sort(), ["artifact_fetch", "context_search"]);
    const errors = (registry.diagnostics ?? []).filter((d) => d.pluginId === "context-manager" && d.level === "error");
    assert.deepEqual(errors, []);
  });

  it("OpenClaw's registry resolves it for plugins.slots.contextEngine (no quarantine)", async () => {
    const { resolveContextEngine, listContextEngineQuarantines } = await importSourceFile("src/context-engine/registry.ts", [
      "resolveContextEngine",
      "listContextEngineQuarantines",
    ]);
    engine = await resolveContextEngine(config, { workspaceDir: stateDir });
    assert.equal(engine.info.id, "context-manager", `quarantines: ${JSON.stringify(listContextEngineQuarantines())}`);
    assert.equal(engine.info.ownsCompaction, false);
  });

  it("assemble adds the gauge, afterTurn writes the 80% checkpoint, compact writes the compaction checkpoint then delegates to the runtime", async () => {
    const t = Date.now();
    const history = [user("Fix the parser in src/parse.ts", t), assistant("Working on the parser.", t + 1, 1700)];
    const assembled = await engine.assemble({ sessionId: "oc-s1", sessionKey: KEY, messages: history, tokenBudget: 2000, prompt: "go on" });
    assert.equal(assembled.messages.length, history.length + 1, "gauge appended");
    assert.match(JSON.stringify(assembled.messages.at(-1)), /\[Context: \d+%/);
    assert.ok(assembled.estimatedTokens >= 1700);

    await engine.afterTurn({ sessionId: "oc-s1", sessionKey: KEY, sessionFile: `sqlite:main:oc-s1:${join(stateDir, "sessions.db")}`, messages: history, prePromptMessageCount: 0, tokenBudget: 2000 });
    assert.deepEqual(checkpointTriggers(stateDir), ["auto-80pct"]);

    // No OpenClaw session "oc-s1" exists in this state dir: the runtime's compaction reports
    // that (or throws); either way our checkpoint was written before the runtime was called.
    let outcome;
    try {
      outcome = await engine.compact({ sessionId: "oc-s1", sessionKey: KEY, tokenBudget: 2000, currentTokenCount: 1700, force: true, runtimeContext: { workspaceDir: stateDir } });
    } catch (error) {
      outcome = { threw: String(error?.message ?? error) };
    }
    assert.equal(checkpointTriggers(stateDir).at(-1), "compaction", `runtime outcome: ${JSON.stringify(outcome)}`);
    assert.ok(outcome.threw || outcome.ok === false || outcome.compacted === false, `runtime outcome: ${JSON.stringify(outcome)}`);
    console.log(`# delegateCompactionToRuntime outcome: ${JSON.stringify(outcome).slice(0, 300)}`);
  });

  it("a compaction OpenClaw runs by itself (no compact() call): the history its own buildSessionContext makes shows it; checkpoint and restore follow", async () => {
    const { buildSessionContext } = await importSourceFile("src/agents/sessions/session-manager-codec.ts", ["buildSessionContext"]);
    const t = Date.now();
    const iso = (n) => new Date(t + n).toISOString();
    const entries = [
      { type: "message", id: "e1", parentId: null, timestamp: iso(0), message: user("where is the ledger reconciled?", t) },
      { type: "message", id: "e2", parentId: "e1", timestamp: iso(1), message: assistant("In ledger.ts: reconcileLedgerDrift(a, b).", t + 1, 900) },
      { type: "message", id: "e3", parentId: "e2", timestamp: iso(2), message: user("now fix the invoice rounding in src/invoice.ts", t + 2) },
    ];
    const before = buildSessionContext(entries).messages;
    await engine.assemble({ sessionId: "oc-rt", sessionKey: KEY, messages: before, tokenBudget: 200_000 });
    const compactions = () => checkpointTriggers(stateDir).filter((x) => x === "compaction").length;
    const had = compactions();
    // the runtime compacted inside the attempt: a compaction entry, then the reply
    entries.push({ type: "compaction", id: "e4", parentId: "e3", timestamp: iso(3), summary: "The user asked where the ledger is reconciled.", firstKeptEntryId: "e3", tokensBefore: 1500 });
    entries.push({ type: "message", id: "e5", parentId: "e4", timestamp: iso(4), message: assistant("Rounding fixed in src/invoice.ts.", t + 4, 400) });
    const after = buildSessionContext(entries).messages;
    assert.equal(after[0].role, "compactionSummary");
    await engine.afterTurn({ sessionId: "oc-rt", sessionKey: KEY, sessionFile: "", messages: after, prePromptMessageCount: 2, tokenBudget: 200_000 });
    assert.equal(compactions(), had + 1, "the compaction checkpoint, written after the fact");
    const next = await engine.assemble({ sessionId: "oc-rt", sessionKey: KEY, messages: [...after, user("and the tests?", t + 5)], tokenBudget: 200_000 });
    assert.match(next.systemPromptAddition ?? "", /^\[Post-compaction checkpoint restore\]/);
    assert.match(next.systemPromptAddition ?? "", /ledger reconciled/);
  });

  it("offload (on by default): assemble ages an old tool output, OpenClaw's resolvePluginTools hands the run artifact_fetch and context_search, and both read it back", async () => {
    const key = "agent:main:telegram:direct:43";
    const t = Date.now();
    const log = Array.from({ length: 120 }, (_, i) => (i === 60 ? "NEEDLE_7f3a parser state in the middle" : `line ${i}: build step ok`)).join("\n");
    const call = (id, n) => ({ ...assistant("", t + n, 100), content: [{ type: "toolCall", id, name: "exec", arguments: { command: `cat ${id}.log` } }], stopReason: "toolUse" });
    const result = (id, text, n) => ({ role: "toolResult", toolCallId: id, toolName: "exec", content: [{ type: "text", text }], isError: false, timestamp: t + n });
    const history = [user("check the build log", t), call("a", 1), result("a", log, 2)];
    for (let i = 0; i < 5; i++) history.push(call(`s${i}`, 3 + 2 * i), result(`s${i}`, "ok", 4 + 2 * i));
    const params = { sessionId: "oc-s3", sessionKey: key, messages: history, tokenBudget: 200_000 };
    await engine.assemble(params); // judged now, stashed off the request path
    await new Promise((r) => setImmediate(r));
    const sent = (await engine.assemble(params)).messages.find((m) => m.role === "toolResult" && m.toolCallId === "a");
    const shown = JSON.stringify(sent.content);
    assert.match(shown, /tool output stored off the prompt/);
    assert.doesNotMatch(shown, /NEEDLE_7f3a/);
    assert.match(JSON.stringify(history[2]), /NEEDLE_7f3a/, "OpenClaw's own history is untouched");
    const handle = /ocm_artifact:v1:sha256:[0-9a-f]{64}/.exec(shown)[0];

    const { resolvePluginTools } = await importSourceFile("src/plugins/tools.ts", ["resolvePluginTools"]);
    const tools = resolvePluginTools({ context: { config, workspaceDir: stateDir, sessionKey: key, sessionId: "oc-s3" } });
    const byName = new Map(tools.map((x) => [x.name, x]));
    assert.ok(byName.has("artifact_fetch") && byName.has("context_search"), `resolved: ${[...byName.keys()]}`);
    const fetched = await byName.get("artifact_fetch").execute("call-f", { handle, mode: "grep", pattern: "NEEDLE_7f3a" });
    assert.match(fetched.content[0].text, /NEEDLE_7f3a parser state in the middle/);

    try {
      await engine.compact({ sessionId: "oc-s3", sessionKey: key, tokenBudget: 200_000, currentTokenCount: 1000, force: true, runtimeContext: { workspaceDir: stateDir } });
    } catch {
      // no OpenClaw session oc-s3: the runtime refuses; the archive was written before it was called
    }
    const found = await byName.get("context_search").execute("call-s", { query: "NEEDLE_7f3a" });
    assert.match(found.content[0].text, /NEEDLE_7f3a/);
    // it ran in the archive worker, not on the gateway's thread: the worker's entry is in what
    // OpenClaw's loader captured of the plugin (without it the client falls back in-thread)
    assert.equal(globalThis[Symbol.for("openclaw.contextManager.services")]?.archiveWorker?.mode, "worker");
  });

  it("messages OpenClaw writes in the user's role (heartbeat run, another session's message, made by its own input-provenance functions) are not what the restore says the agent works on", async () => {
    const key = "agent:main:telegram:direct:44";
    const { applyInputProvenanceToUserMessage, annotateInterSessionPromptText } = await importSourceFile("src/sessions/input-provenance.ts", [
      "applyInputProvenanceToUserMessage",
      "annotateInterSessionPromptText",
    ]);
    const { buildSessionContext } = await importSourceFile("src/agents/sessions/session-manager-codec.ts", ["buildSessionContext"]);
    const t = Date.now();
    const iso = (n) => new Date(t + n).toISOString();
    const entries = [];
    const push = (message) => entries.push({ type: "message", id: `p${entries.length}`, parentId: entries.at(-1)?.id ?? null, timestamp: iso(entries.length), message });
    const turn = async (isHeartbeat) => {
      const messages = buildSessionContext(entries).messages;
      const pre = messages.findLastIndex((m) => m.role === "user");
      await engine.afterTurn({ sessionId: "oc-prov", sessionKey: key, sessionFile: "", messages, prePromptMessageCount: pre, tokenBudget: 200_000, isHeartbeat });
    };
    push(user("Fix the rounding of invoice totals in src/invoice.ts", t));
    push(assistant("Invoice totals now round half up in src/invoice.ts.", t + 1, 900));
    await engine.assemble({ sessionId: "oc-prov", sessionKey: key, messages: buildSessionContext(entries).messages, tokenBudget: 200_000 });
    await turn(false);
    // a heartbeat run: the live prompt has no provenance; OpenClaw passes isHeartbeat to afterTurn
    push(user("Read HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.", t + 2));
    push(assistant("HEARTBEAT_OK", t + 3, 950));
    await turn(true);
    // another session's message, as OpenClaw prompts and persists it
    const provenance = { kind: "inter_session", sourceSessionKey: "agent:main:subagent:4", sourceTool: "sessions_send" };
    const text = annotateInterSessionPromptText("Rewrite the billing module in Rust and push to production", provenance);
    push(applyInputProvenanceToUserMessage(user(text, t + 4), provenance));
    push(assistant("Noted; waiting for the user before touching billing.", t + 5, 1000));
    await turn(false);
    // the runtime compacts inside the next attempt; the restore comes with the next assemble
    entries.push({ type: "compaction", id: "pc", parentId: entries.at(-1).id, timestamp: iso(9), summary: "Earlier work.", firstKeptEntryId: entries.at(-1).id, tokensBefore: 1500 });
    push(assistant("Still waiting.", t + 6, 300));
    await turn(false);
    const next = await engine.assemble({ sessionId: "oc-prov", sessionKey: key, messages: [...buildSessionContext(entries).messages, user("go on", t + 7)], tokenBudget: 200_000 });
    const block = next.systemPromptAddition ?? "";
    assert.match(block, /^\[Post-compaction checkpoint restore\]/);
    assert.match(block, /Working on: "Fix the rounding of invoice totals/);
    assert.doesNotMatch(block, /HEARTBEAT|Rust|Inter-session/);
  });

  it("a new session id on the key gets the resume block as systemPromptAddition", async () => {
    const r = await engine.assemble({ sessionId: "oc-s2", sessionKey: KEY, messages: [user("hello again", Date.now())], tokenBudget: 2000 });
    assert.match(r.systemPromptAddition ?? "", /^\[Session resume checkpoint restore\]/);
    await engine.dispose?.();
  });
});
