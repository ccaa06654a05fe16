/**
 * The OpenClaw plugin's own compaction (issue 25), driven through its registration as OpenClaw's
 * registry calls it. "checkpoint" mode: ownsCompaction, compact() cuts and summarizes without the
 * runtime, assemble sends the summary plus the kept messages (the runtime's transcript, the array
 * it passes, is untouched), no restore block; the overflow-recovery retry (a second compact())
 * succeeds and cuts further. "host" mode: a failing and a hanging runtime compaction are replaced
 * by the checkpoint compaction.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { CompactParams, CompactResult, ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";
import { COMPACTION_SUMMARY_HEADER } from "../../src/agents/inject/markers.js";
import { estimateContextTokens } from "../../src/agents/gauge/context-gauge.js";
import { chooseCut } from "../../src/openclaw-plugin/context-engine.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const KEY = "agent:main:telegram:direct:25";

const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

/** n turns: a request, a write call, its result, a report; ~650 tokens each. */
function history(n: number, t0 = 1_700_000_000_000): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < n; i++) {
    const t = t0 + i * 10;
    out.push({ role: "user", content: `Request ${i}: write src/f${i}.ts ${"detail ".repeat(150)}`, timestamp: t } as AgentMessage);
    out.push({ role: "assistant", content: [{ type: "toolCall", id: `call_${i}`, name: "write", arguments: { path: `src/f${i}.ts`, content: `export function f${i}() {}\n` } }], api: "faux", provider: "faux", model: "faux", usage: usage(2000 * i), stopReason: "toolUse", timestamp: t + 1 } as AgentMessage);
    out.push({ role: "toolResult", toolCallId: `call_${i}`, toolName: "write", content: [{ type: "text", text: "ok" }], isError: false, timestamp: t + 2 } as AgentMessage);
    out.push({ role: "assistant", content: [{ type: "text", text: `Wrote \`f${i}()\` in src/f${i}.ts. ${"report ".repeat(150)}` }], api: "faux", provider: "faux", model: "faux", usage: usage(2000 * i + 100), stopReason: "stop", timestamp: t + 3 } as AgentMessage);
  }
  return out;
}

function setup(config: Record<string, unknown>, delegate: (p: CompactParams) => Promise<CompactResult>) {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-own-compaction-"));
  let engine: ContextEngineShape | null = null;
  const warnings: string[] = [];
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, ...config },
    logger: { warn: (m) => warnings.push(m) },
    registerContextEngine: (_id, factory) => {
      engine = factory({}) as ContextEngineShape;
    },
  };
  registerContextManagerPlugin(api, delegate);
  return { engine: engine!, warnings, stateDir };
}

function orphans(messages: AgentMessage[]): string[] {
  const calls = new Set<string>();
  const out: string[] = [];
  for (const m of messages as Array<{ role: string; content?: unknown; toolCallId?: string }>) {
    if (m.role === "assistant" && Array.isArray(m.content)) for (const b of m.content as Array<{ type: string; id?: string }>) if (b.type === "toolCall" && b.id) calls.add(b.id);
    if (m.role === "toolResult" && m.toolCallId && !calls.has(m.toolCallId)) out.push(m.toolCallId);
  }
  return out;
}

const ctx = (sessionId: string) => ({ sessionId, sessionKey: KEY, tokenBudget: 32_000 });

describe("the plugin's own compaction", () => {
  it("checkpoint mode: compact() cuts and summarizes itself; assemble sends summary + kept; the retry cuts further", async () => {
    let delegated = 0;
    const { engine } = setup({ compaction: "checkpoint" }, async () => {
      delegated++;
      return { ok: true, compacted: true, result: { tokensBefore: 0 } };
    });
    expect(engine.info.ownsCompaction).toBe(true);
    const h = history(30);
    const copy = structuredClone(h);
    await engine.assemble({ ...ctx("s1"), messages: h });
    const first = await engine.compact({ ...ctx("s1"), currentTokenCount: estimateContextTokens(h) });
    expect(first.ok && first.compacted).toBe(true);
    expect(first.result?.summary?.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(delegated).toBe(0);

    const after = await engine.assemble({ ...ctx("s1"), messages: h });
    expect(h).toEqual(copy); // the runtime's transcript is untouched
    const sent = after.messages.filter((m) => !(m as { customType?: string }).customType);
    expect((sent[0] as { role: string }).role).toBe("compactionSummary");
    expect((sent[0] as unknown as { summary: string }).summary).toContain("f0.ts");
    expect((sent[1] as { role: string }).role).toBe("user");
    expect(orphans(sent)).toEqual([]);
    expect(sent.length).toBeLessThan(h.length);
    expect(after.systemPromptAddition).toBeUndefined(); // the summary is the restore
    // the kept messages are the transcript's own, verbatim
    const kept = sent.slice(1);
    expect(kept).toEqual(h.slice(h.length - kept.length));

    // the overflow-recovery retry calls compact() again: it succeeds and cuts further
    const retry = await engine.compact({ ...ctx("s1"), currentTokenCount: after.estimatedTokens });
    expect(retry.ok && retry.compacted).toBe(true);
    const again = await engine.assemble({ ...ctx("s1"), messages: h });
    expect(again.estimatedTokens).toBeLessThan(after.estimatedTokens);
    expect(orphans(again.messages)).toEqual([]);
    expect(delegated).toBe(0);
  });

  it("checkpoint mode: when the runtime persists our compaction in its transcript, the next history is sent as is, no second checkpoint, no restore", async () => {
    const { engine, stateDir } = setup({ compaction: "checkpoint" }, async () => ({ ok: false, compacted: false, reason: "not called" }));
    const h = history(30);
    await engine.assemble({ ...ctx("s6"), messages: h });
    await engine.commitTurn!({ ...ctx("s6"), advancementKey: "t1", messages: h.slice(-4) });
    const r = await engine.compact({ ...ctx("s6"), currentTokenCount: estimateContextTokens(h) });
    expect(r.ok && r.compacted).toBe(true);
    const cut = (r.result?.details as { contextManager: { cut: number } }).contextManager.cut;
    // OpenClaw 2026.9 records an owning engine's result: its transcript now starts with our summary
    const persisted = [{ role: "compactionSummary", summary: r.result!.summary, tokensBefore: 1, timestamp: Date.now() } as unknown as AgentMessage, ...h.slice(cut)];
    const next = await engine.assemble({ ...ctx("s6"), messages: [...persisted, { role: "user", content: "Where were we?", timestamp: Date.now() } as AgentMessage] });
    const summaries = next.messages.filter((m) => (m as { role: string }).role === "compactionSummary");
    expect(summaries).toHaveLength(1);
    expect(next.systemPromptAddition).toBeUndefined();
    expect(readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.trigger === "compaction")).toHaveLength(1);
  });

  it("chooseCut: never before the first request's turn, always at a user message", () => {
    const h = history(4);
    const withPreamble = [{ role: "custom", customType: "x", content: "host preamble", display: false, timestamp: 1 } as unknown as AgentMessage, ...h];
    const cut = chooseCut(withPreamble, 100_000, 0);
    expect(cut).toBe(5); // the second request: the whole first turn (and the preamble) compacted
    expect((withPreamble[cut] as { role: string }).role).toBe("user");
    expect(chooseCut(history(1), 100, 0)).toBe(0); // one turn: nothing to cut
  });

  it("checkpoint mode, a compaction in a process that saw no history: the runtime's compaction runs (the safety net)", async () => {
    let delegated = 0;
    const { engine } = setup({ compaction: "checkpoint" }, async () => {
      delegated++;
      return { ok: true, compacted: true, result: { tokensBefore: 7, summary: "runtime summary" } };
    });
    const r = await engine.compact({ ...ctx("s5") });
    expect(delegated).toBe(1);
    expect(r.result?.summary).toBe("runtime summary");
  });

  it("host mode: a failing runtime compaction is replaced by the checkpoint compaction", async () => {
    const { engine, warnings } = setup({ compaction: "host" }, async () => {
      throw new Error("summarizer 500");
    });
    expect(engine.info.ownsCompaction).toBe(false);
    const h = history(10);
    await engine.assemble({ ...ctx("s2"), messages: h });
    const r = await engine.compact({ ...ctx("s2") });
    expect(r.ok && r.compacted).toBe(true);
    expect(r.result?.summary?.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(warnings.join("\n")).toMatch(/runtime's compaction failed: the checkpoint compaction took its place/);
    const next = await engine.assemble({ ...ctx("s2"), messages: h });
    expect((next.messages[0] as { role: string }).role).toBe("compactionSummary");
    expect(next.systemPromptAddition).toBeUndefined();
  });

  it("host mode: a hanging runtime compaction is replaced after compactionDeadlineMs", async () => {
    const { engine, warnings } = setup({ compaction: "host", compactionDeadlineMs: 1000 }, () => new Promise<CompactResult>(() => undefined));
    const h = history(10);
    await engine.assemble({ ...ctx("s3"), messages: h });
    const r = await engine.compact({ ...ctx("s3") });
    expect(r.ok && r.compacted).toBe(true);
    expect(warnings.join("\n")).toMatch(/ran past 1000 ms/);
  }, TEST_TIMEOUT_MS);

  it("host mode: a runtime compaction that succeeds in time is returned as is", async () => {
    const { engine } = setup({ compaction: "host" }, async () => ({ ok: true, compacted: true, result: { tokensBefore: 5, summary: "runtime summary" } }));
    const h = history(4);
    await engine.assemble({ ...ctx("s4"), messages: h });
    const r = await engine.compact({ ...ctx("s4") });
    expect(r.result?.summary).toBe("runtime summary");
  });
});
