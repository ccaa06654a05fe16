/**
 * OpenClaw 2026.9's durable turns as the real host drives them (measured on `openclaw gateway`
 * with a loopback model, docs/openclaw-integration.md §6): a NEW engine instance for every
 * logical turn and for a standalone compaction; assemble sees the history before the turn and
 * only the prompt budget; the accepted turn arrives once through commitTurn (with the model's
 * window in runtimeContext), a host retry with the same advancement key. What the user gets must
 * not depend on one instance living longer than its turn.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { SESSION_FILE } from "../../src/openclaw-plugin/session-file.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { beforeAll, describe, expect, it } from "vitest";
import { forgetProcessState } from "../helpers/new-process.js";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { CompactResult, ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { DEFAULT_ARCHIVE_LIMITS, SessionArchive } from "../../src/agents/archive/archive.js";
import { archiveWorker } from "../../src/agents/archive/worker/archive-client.js";
import { RECALL_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

const KEY = "agent:main:web:direct:5";
const SID = "s-durable";
const WINDOW = 32_000;
const PROMPT_BUDGET = 12_000; // what 2026.9 passes to assemble: window minus system prompt and output
const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const user = (content: string, t: number): AgentMessage => ({ role: "user", content, timestamp: t }) as AgentMessage;
const reply = (text: string, t: number, input = 13_000): AgentMessage =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "mock", model: "m1", usage: usage(input), stopReason: "stop", timestamp: t }) as AgentMessage;
const call = (id: string, name: string, args: Record<string, unknown>, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], api: "openai-completions", provider: "mock", model: "m1", usage: usage(12_500), stopReason: "toolUse", timestamp: t }) as AgentMessage;
const result = (id: string, name: string, text: string, t: number, isError = false): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: t }) as AgentMessage;
const summary = (text: string, t: number): AgentMessage => ({ role: "compactionSummary", summary: text, tokensBefore: 20_000, timestamp: t }) as AgentMessage;

/** A fresh engine, as OpenClaw's factory makes one per logical turn. */
function newInstance(stateDir: string, compacted: () => CompactResult = () => ({ ok: true, compacted: true, result: { tokensBefore: 13_000, tokensAfter: 2_000 } }), config: Record<string, unknown> = {}): ContextEngineShape {
  return instanceWith(stateDir, compacted, config);
}

/** set per describe block: every instance in a process of its own (CLI turns) or all in one (gateway) */
let processPerInstance = false;

function instanceWith(stateDir: string, compacted: () => CompactResult, config: Record<string, unknown>): ContextEngineShape {
  if (processPerInstance) forgetProcessState();
  let engine: ContextEngineShape | null = null;
  registerContextManagerPlugin(
    { id: "context-manager", pluginConfig: { stateDir, ...config }, registerContextEngine: (_id, f) => void (engine = f({ workspaceDir: "/ws" }) as ContextEngineShape) },
    async () => compacted(),
  );
  return engine!;
}

/** One logical turn on its own instance: assemble (history before the turn), commitTurn (the turn). */
async function turn(stateDir: string, before: AgentMessage[], messages: AgentMessage[], advancementKey: string) {
  const engine = newInstance(stateDir);
  const assembled = await engine.assemble({ sessionId: SID, sessionKey: KEY, messages: before, tokenBudget: PROMPT_BUDGET });
  const committed = await engine.commitTurn({
    advancementKey,
    sessionId: SID,
    sessionKey: KEY,
    messages,
    runtimeContext: { provider: "mock", modelId: "m1", modelContextWindow: WINDOW, tokenBudget: WINDOW },
  });
  await engine.dispose();
  return { assembled, committed };
}

describe.each([
  ["one gateway process", false],
  ["a process per turn (openclaw agent --local)", true],
])("OpenClaw durable turns, a new engine instance per turn: %s", (_mode, perProcess) => {
  beforeAll(() => {
    processPerInstance = perProcess;
  });

  it("declares the transcript semantics without which 2026.9 degrades every turn to legacy", () => {
    const engine = newInstance(mkdtempSync(join(tmpdir(), "cm-durable-")));
    expect(engine.info.transcriptSemantics).toEqual({ currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" });
    expect(typeof engine.commitTurn).toBe("function");
  });

  it("captures tools from the committed turn's messages, gauges against the model's window, and answers a retried key with duplicate", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-durable-"));
    const t = Date.now();
    const turn1 = [
      user("Fix the rounding in src/invoice.ts", t),
      call("c1", "read", { path: "src/invoice.ts" }, t + 1),
      result("c1", "read", "export const total = (x) => Math.floor(x)", t + 2),
      call("c2", "edit", { path: "src/invoice.ts", oldText: "Math.floor(x)", newText: "Math.round(x)" }, t + 3),
      result("c2", "edit", "Edited src/invoice.ts", t + 4),
      call("c3", "exec", { command: "npm test" }, t + 5),
      result("c3", "exec", JSON.stringify({ status: "error", tool: "exec", error: "2 tests failed in invoice.test.ts" }), t + 6, true),
      reply("Rounding fixed; 2 invoice tests still fail.", t + 7),
    ];
    const first = await turn(stateDir, [], turn1, "turn-1");
    expect(first.committed.status).toBe("committed");
    // 13k of a 32k window is 41%: no 80% checkpoint (against the 12k prompt budget it would be 108%)
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(0);

    // the host retries the same turn (a lost acknowledgement): nothing is captured twice
    const retry = await turn(stateDir, [], turn1, "turn-1");
    expect(retry.committed.status).toBe("duplicate");

    const turn2 = [user("Run the tests again", t + 10), call("c4", "exec", { command: "npm test" }, t + 11), result("c4", "exec", "2 passed", t + 12), reply("All invoice tests pass now.", t + 13)];
    const second = await turn(stateDir, turn1, turn2, "turn-2");
    expect(second.committed.status).toBe("committed");
    // the gauge the agent saw in turn 2 (history before it: 13k of the model's 32k, not of the budget)
    const gauge = JSON.stringify(second.assembled.messages.at(-1));
    expect(gauge).not.toMatch(/1\d\d%/);

    // a standalone compaction (`openclaw sessions compact`): its own instance, no messages
    const compactor = newInstance(stateDir);
    const compacted = await compactor.compact({ sessionId: SID, sessionKey: KEY, tokenBudget: WINDOW, force: true });
    expect(compacted.ok).toBe(true);
    await compactor.dispose();
    const cps = readCheckpointsOnDisk(stateDir, KEY);
    expect(cps.map((c) => c.meta.trigger)).toEqual(["compaction"]);
    const cp = cps[0]!;
    expect(cp.meta.token_usage.context_window).toBe(WINDOW);
    expect(cp.meta.token_usage.input_tokens).toBeGreaterThan(0);
    expect(cp.resources.files_modified).toContain("src/invoice.ts");
    expect(cp.resources.tools_used).toEqual(expect.arrayContaining(["read", "edit", "exec"]));
    // the exec failure was fixed by the later passing run: not open; its command ran twice, counted twice
    expect(cp.work?.open_failures ?? []).toHaveLength(0);
    expect(cp.work?.commands?.find((c) => c.family.startsWith("npm"))?.runs).toBe(2);

    // the next turn, on yet another instance, gets the post-compaction restore
    const after = [summary("## Goal\nFix invoice rounding", t + 20), ...turn2.slice(-1)];
    const third = await turn(stateDir, after, [user("What is left?", t + 30), reply("Nothing; shipping.", t + 31, 3_000)], "turn-3");
    const block = third.assembled.systemPromptAddition ?? "";
    expect(block).toMatch(/^\[Post-compaction checkpoint restore\]/);
    expect(block).toContain("src/invoice.ts");
    // and the turn after that does not
    const fourth = await turn(stateDir, [...after, user("What is left?", t + 30), reply("Nothing; shipping.", t + 31, 3_000)], [user("thanks", t + 40), reply("ok", t + 41, 3_000)], "turn-4");
    expect(fourth.assembled.systemPromptAddition).toBeUndefined();

    // every committed turn is in the archive (the host hands the messages over only then)
    const archive = new SessionArchive(stateDir, KEY);
    await archive.load();
    const roles = archive.search("rounding invoice").map((h) => h.record.role);
    expect(roles).toEqual(expect.arrayContaining(["user", "tool_result"]));
  });

  it("the gauge counts the fenced turn's prompt, which the model reads but the history leaves out", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-durable-"));
    const t = Date.now();
    const history = [user("Summarize the ledger", t), reply("Here is the summary.", t + 1, 19_500)]; // 61% of 32k
    await turn(stateDir, [], history, "g1"); // the window is learnt from this commit
    const gaugeOf = (r: { messages: AgentMessage[] }) => JSON.stringify(r.messages.at(-1)).match(/\[Context: (\d+)%/)?.[1];
    const engine = newInstance(stateDir);
    const small = await engine.assemble({ sessionId: SID, sessionKey: KEY, messages: history, tokenBudget: PROMPT_BUDGET, prompt: "and the totals?" });
    expect(gaugeOf(small)).toBeUndefined();
    const pasted = `Here is the full log:\n${"ledger line 0042 reconciled amount 17.35 EUR\n".repeat(450)}`; // ~5k tokens
    const big = await engine.assemble({ sessionId: SID, sessionKey: KEY, messages: history, tokenBudget: PROMPT_BUDGET, prompt: pasted });
    expect(Number(gaugeOf(big))).toBeGreaterThanOrEqual(70);
    // what it tells the host about the assembled messages leaves the prompt out (the host counts it)
    expect(big.estimatedTokens).toBe(small.estimatedTokens);
    // a history that already ends with the prompt (a host without fencing) is not counted twice
    const unfenced = await engine.assemble({ sessionId: SID, sessionKey: KEY, messages: [...history, user("and the totals?", t + 2)], tokenBudget: PROMPT_BUDGET, prompt: "and the totals?" });
    expect(gaugeOf(unfenced)).toBeUndefined();
  });

  it("a restore owed to the compacted session is not given to a new session on the key (/new): that one gets the resume block", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-durable-"));
    const t = Date.now();
    await turn(stateDir, [], [user("Draft the release notes in NOTES.md", t), call("c1", "write", { path: "NOTES.md", content: "# 1.2" }, t + 1), result("c1", "write", "ok", t + 2), reply("Drafted.", t + 3)], "n1");
    const compactor = newInstance(stateDir);
    await compactor.compact({ sessionId: SID, sessionKey: KEY, tokenBudget: WINDOW });
    const fresh = newInstance(stateDir);
    const r = await fresh.assemble({ sessionId: "s-new", sessionKey: KEY, messages: [], tokenBudget: PROMPT_BUDGET, prompt: "hello" });
    expect(r.systemPromptAddition ?? "").toMatch(/^\[Session resume checkpoint restore\][\s\S]*NOTES\.md/);
    // the compacted session's own next turn still gets what it is owed
    const own = await newInstance(stateDir).assemble({ sessionId: SID, sessionKey: KEY, messages: [summary("## Goal\nrelease notes", t + 5)], tokenBudget: PROMPT_BUDGET });
    expect(own.systemPromptAddition ?? "").toMatch(/^\[Post-compaction checkpoint restore\]/);
  });

  it("automatic recall after a compaction queries the fenced turn's prompt and puts the block last, where the host appends that prompt", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-durable-"));
    const t = Date.now();
    const ledger = [
      user("Where is the ledger reconciled?", t),
      call("c1", "read", { path: "src/ledger.ts" }, t + 1),
      result("c1", "read", "export function reconcileLedgerDrift(a, b) { return a - b; } // keeps cents", t + 2),
      reply("In src/ledger.ts.", t + 3),
    ];
    await turn(stateDir, [], ledger, "r1");
    await newInstance(stateDir).compact({ sessionId: SID, sessionKey: KEY, tokenBudget: WINDOW });
    const engine = newInstance(stateDir, undefined, { autoRecall: true, recallMinScore: 0 });
    // the request path never loads the archive (a cold one is loaded in the background, and that
    // request goes without): loaded here as a warm process has it
    await archiveWorker().call("search", { stateDir, sessionKey: KEY, limits: DEFAULT_ARCHIVE_LIMITS, query: "warm", limit: 1 });
    const history = [summary("## Goal\nledger questions", t + 5)];
    const r = await engine.assemble({ sessionId: SID, sessionKey: KEY, messages: history, tokenBudget: PROMPT_BUDGET, prompt: "does reconcileLedgerDrift keep the cents?" });
    const last = r.messages.at(-1) as { customType?: string; content?: unknown };
    expect(last.customType).toBe(RECALL_CUSTOM_TYPE);
    expect(String(last.content)).toContain("reconcileLedgerDrift(a, b)");
  });

  it("a compaction the runtime ran by itself between turns: the next turn's instance writes the checkpoint after the fact and restores", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-durable-"));
    const t = Date.now();
    const turn1 = [user("Port the parser in src/parse.ts to the new API", t), call("c1", "edit", { path: "src/parse.ts", oldText: "a", newText: "b" }, t + 1), result("c1", "edit", "ok", t + 2), reply("Ported.", t + 3)];
    await turn(stateDir, [], turn1, "k1");
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(0);
    // the runtime compacted (no compact() call): the history of the next turn starts with its summary
    const next = await turn(stateDir, [summary("## Goal\nport the parser with key AKIAIOSFODNN7EXAMPLE", t + 5), ...turn1.slice(-1)], [user("continue", t + 10), reply("done", t + 11, 2_000)], "k2");
    // the summary's identity is kept on disk as a hash: no summary text, no secret in it
    const kept = readFileSync(join(stateSessionDir(stateDir, KEY), SESSION_FILE), "utf8");
    expect(kept).toMatch(/"seen":"[0-9a-f]{32}"/);
    expect(kept).not.toMatch(/AKIA|parser/);
    const cps = readCheckpointsOnDisk(stateDir, KEY);
    expect(cps.map((c) => c.meta.trigger)).toEqual(["compaction"]);
    expect(cps[0]!.resources.files_modified).toContain("src/parse.ts");
    expect(next.assembled.systemPromptAddition ?? "").toMatch(/^\[Post-compaction checkpoint restore\][\s\S]*src\/parse\.ts/);

    // the count of compactions outlives the instances: a later /compact is the session's second
    const compactor = newInstance(stateDir);
    await compactor.compact({ sessionId: SID, sessionKey: KEY, tokenBudget: WINDOW });
    expect(readCheckpointsOnDisk(stateDir, KEY).map((c) => c.meta.compaction_count)).toEqual([1, 2]);
    const later = await turn(stateDir, [summary("## Goal\nport the parser (2)", t + 20)], [user("and now?", t + 30), reply("done", t + 31, 2_000)], "k3");
    expect(later.assembled.systemPromptAddition ?? "").toContain("compactions this session: 2");
  });
});
