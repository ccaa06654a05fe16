/**
 * The plugin as OpenClaw's compaction provider (src/openclaw-plugin/compaction-provider.ts),
 * driven through its registration as OpenClaw's registry calls it: the `before_compaction` hook
 * as the runtime fires it, then `summarize` as the compaction-safeguard calls it, with real
 * checkpoints and archive in a temp dir. The real gateway runs it in the compat suite
 * (compat/openclaw-provider.test.mjs).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { CompactParams, CompactResult, CompactionProviderShape, ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";
import { COMPACTION_PROVIDER_ID, PROVIDER_KEY_PREFIX } from "../../src/openclaw-plugin/compaction-provider.js";
import { clearCompactionHints } from "../../src/openclaw-plugin/compaction-provider.js";
import { backgroundWritesSettled, spanArchivesSettled } from "../../src/agents/engine/archive-hooks.js";
import { COMPACTION_SUMMARY_HEADER } from "../../src/agents/inject/markers.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { call, prose, reply, result, user } from "./plugin-messages.js";

type Hook = (event: unknown, ctx: unknown) => unknown;
type ToolFactory = (ctx: { sessionKey?: string; sessionId?: string }) => { execute: (id: string, p: unknown) => Promise<{ content: Array<{ text: string }> }> };

function setup(config: Record<string, unknown> = {}, delegate: (p: CompactParams) => Promise<CompactResult> = async () => ({ ok: false, compacted: false })) {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-provider-"));
  const providers: CompactionProviderShape[] = [];
  const hooks = new Map<string, Hook>();
  const tools: Array<{ factory: ToolFactory; name?: string }> = [];
  let engine: ContextEngineShape | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, ...config },
    registerContextEngine: (_id, factory) => void (engine = factory({}) as ContextEngineShape),
    registerTool: (factory, opts) => void tools.push({ factory: factory as ToolFactory, name: opts?.name }),
    registerCompactionProvider: (p) => void providers.push(p),
    on: (name, handler) => void hooks.set(name, handler),
  };
  registerContextManagerPlugin(api, delegate);
  expect(providers).toHaveLength(1);
  return { stateDir, provider: providers[0]!, hook: hooks.get("before_compaction")!, tools, engine: engine! };
}

/** A session of `turns` turns: a request, a read call, its result and a reply each. */
function history(turns: number, t0: number, tag = "t"): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    const t = t0 + i * 10;
    out.push(user(`${tag}${i}: look into src/mod${i}.ts and tell me about parseLedger${i}`, t));
    out.push(call(`c${tag}${i}`, `src/mod${i}.ts`, t + 1));
    out.push(result(`c${tag}${i}`, prose(60, `m${i}`), t + 2));
    out.push(reply(`mod${i} defines parseLedger${i}; it rounds twice.`, t + 3));
  }
  return out;
}

const settled = async () => {
  await backgroundWritesSettled();
  await spanArchivesSettled();
};

afterEach(() => clearCompactionHints());

describe("OpenClaw compaction provider", () => {
  it("registers under its id with a before_compaction hook; summarizes a known session: our summary, its checkpoint written, the span archived for context_search", async () => {
    const { stateDir, provider, hook, tools } = setup();
    expect(provider.id).toBe(COMPACTION_PROVIDER_ID);
    expect(provider.label).toMatch(/no model call/);
    const key = "agent:main:provider-a";
    const msgs = history(6, Date.now());
    // the in-attempt auto-compaction hook: the key and the live messages (plus one not summarized)
    hook({ messageCount: msgs.length + 1, messages: [...msgs, user("and now?", Date.now() + 1000)], sessionFile: "/x/sess-a.jsonl" }, { sessionKey: key });
    const text = await provider.summarize({ messages: msgs });
    expect(text.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(text).toContain("t0: look into src/mod0.ts"); // the goal: the first request
    expect(text).toContain("src/mod5.ts");
    await settled();
    const cps = readCheckpointsOnDisk(stateDir, key);
    expect(cps.map((c) => c.meta.trigger)).toEqual(["compaction"]);
    expect(cps[0]!.meta.session_id).toBe("sess-a");
    expect(text).toContain(cps[0]!.meta.checkpoint_id);
    const search = tools.find((t) => t.name === "context_search")!.factory({ sessionKey: key, sessionId: "sess-a" });
    const found = (await search.execute("q1", { query: "parseLedger3" })).content[0]!.text;
    expect(found).toContain("parseLedger3");
  });

  it("a second compaction carries the first forward without repeating it (previousSummary of ours), within the budget", async () => {
    const { stateDir, provider, hook } = setup({ compactionSummaryMaxTokens: 600 });
    const key = "agent:main:provider-b";
    const t = Date.now();
    const first = history(5, t, "a");
    hook({}, { sessionKey: key, sessionId: "sb" }); // `openclaw sessions compact`: ids only
    const s1 = await provider.summarize({ messages: first });
    const second = history(5, t + 1000, "b");
    hook({}, { sessionKey: key, sessionId: "sb" });
    const s2 = await provider.summarize({ messages: second, previousSummary: `${s1}\n\n## Recent turns preserved verbatim\n- User: a4` });
    expect(s2.split(COMPACTION_SUMMARY_HEADER)).toHaveLength(2); // the header once: not quoted again
    expect(s2).toContain("a0: look into src/mod0.ts"); // the first request of the session stays the goal
    expect(s2).toContain("b4: look into");
    expect(s2.length).toBeLessThanOrEqual(600 * 4);
    expect(s1.length).toBeLessThanOrEqual(600 * 4);
    await settled();
    expect(readCheckpointsOnDisk(stateDir, key).map((c) => c.meta.compaction_count)).toEqual([1, 2]);
  });

  it("compressionRatio shortens the summary; never more than the safeguard's body share", async () => {
    const { provider } = setup({ compactionSummaryMaxTokens: 50_000 });
    const msgs = history(80, Date.now(), "r");
    const full = await provider.summarize({ messages: msgs });
    expect(full.length).toBeLessThanOrEqual(8_000);
    const short = await provider.summarize({ messages: history(80, Date.now() + 5_000, "r"), compressionRatio: 0.02 });
    expect(short.length).toBeLessThan(full.length);
    expect(short.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
  });

  it("an unknown session (two sessions compacting at once, no messages to tell them apart) goes under a key of its own, never another session's", async () => {
    const { stateDir, provider, hook } = setup();
    hook({}, { sessionKey: "agent:main:one", sessionId: "s1" });
    hook({}, { sessionKey: "agent:main:two", sessionId: "s2" });
    const text = await provider.summarize({ messages: history(3, Date.now(), "u") });
    expect(text.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    await settled();
    expect(readCheckpointsOnDisk(stateDir, "agent:main:one")).toEqual([]);
    expect(readCheckpointsOnDisk(stateDir, "agent:main:two")).toEqual([]);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(join(stateDir, "context", "checkpoints")).some((d) => d.includes(PROVIDER_KEY_PREFIX.replace(":", "")) || d.includes("openclaw-compaction"))).toBe(true);
  });

  it("never throws and never returns empty for a history, whatever it holds; an aborted signal rejects (OpenClaw rethrows it, no model call)", async () => {
    const { provider } = setup();
    const junk = [null, 5, "x", { role: "user", content: { odd: true } }, { role: "assistant", content: [null, { type: "toolCall" }] }] as unknown[];
    const text = await provider.summarize({ messages: junk });
    expect(text.trim()).not.toBe("");
    expect(await provider.summarize({ messages: [] })).toBe("");
    expect((await provider.summarize({ messages: undefined as unknown as unknown[] })).length).toBe(0);
    const ac = new AbortController();
    ac.abort(new Error("user stopped"));
    await expect(provider.summarize({ messages: history(2, Date.now()), signal: ac.signal })).rejects.toThrow("user stopped");
  });

  it("under our engine (\"host\" mode): compact() writes the checkpoint, the runtime's safeguard calls the provider, which renders that checkpoint; no second checkpoint, no restore block beside the summary", async () => {
    const key = "agent:main:provider-engine";
    const msgs = history(4, Date.now(), "e");
    let summary = "";
    // the runtime compaction OpenClaw runs for compact(): its hook (ids only), then the safeguard's provider call
    const ref: { provider?: CompactionProviderShape; hook?: Hook } = {};
    const { stateDir, engine, provider, hook } = setup({}, async (p) => {
      ref.hook!({ messageCount: -1 }, { sessionKey: p.sessionKey, sessionId: p.sessionId });
      summary = await ref.provider!.summarize({ messages: msgs.slice(0, 12) });
      return { ok: true, compacted: true, result: { summary, tokensBefore: 3000, tokensAfter: 900 } };
    });
    ref.provider = provider;
    ref.hook = hook;
    await engine.assemble({ sessionId: "se", sessionKey: key, messages: msgs, tokenBudget: 100_000 });
    await engine.compact({ sessionId: "se", sessionKey: key, currentTokenCount: 3000 });
    await settled();
    const cps = readCheckpointsOnDisk(stateDir, key);
    expect(cps.map((c) => c.meta.trigger)).toEqual(["compaction"]);
    expect(summary).toContain(cps[0]!.meta.checkpoint_id);
    expect(summary).toContain("e0: look into src/mod0.ts");
    const next = await engine.assemble({ sessionId: "se", sessionKey: key, messages: [{ role: "compactionSummary", summary, tokensBefore: 3000, timestamp: Date.now() } as unknown as AgentMessage, ...msgs.slice(12), user("where were we?", Date.now() + 1)], tokenBudget: 100_000 });
    expect(next.systemPromptAddition ?? "").not.toContain("Post-compaction checkpoint restore");
  });
});
