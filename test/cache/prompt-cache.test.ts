/**
 * The prompt-cache policy (issue 37) through the real Pi SDK (AgentRunner and a standalone pi
 * AgentSession on the faux model): under Anthropic's breakpoint rules each request holds the
 * previous request's messages unchanged through its last block (where its cache breakpoint
 * was) unless the policy chose a rewrite, and says which; the gauge still reaches the agent at
 * >= 70% and the 80% checkpoint fires; under `none` the gauge is the last message as before.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import type { ContextUsage, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { clearCacheSessions } from "../helpers/new-process.js";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

const KEY = "agent:main:telegram:direct:37";
const GAUGE_RE = /^\[Context: (\d+)% \|/;

/** The JSON of each message, as the provider received it. */
const wire = (c: Context) => c.messages.map((m) => JSON.stringify(m));

function usageRecorder(into: Array<ContextUsage | undefined>): ExtensionFactory {
  return (pi) => {
    pi.on("context", (_event, ctx) => {
      into.push(ctx.getContextUsage());
      return undefined;
    });
  };
}

describe("prompt cache: the gauge line", () => {
  let host: Host | undefined;
  beforeEach(() => clearCacheSessions());
  afterEach(async () => {
    await host?.cleanup();
    host = undefined;
  });

  async function grow(h: Host, turns: number): Promise<void> {
    for (let i = 0; i < turns; i++) {
      h.agent.queue(reply.text(filler(`Answer ${i}`, 2400)));
      const report = await h.runner.handleInbound(KEY, filler(`Question ${i}`, 1600));
      if (report.compactions.length > 0) return;
    }
  }

  it("anthropic: every request above 70% holds the previous one through its last block; the gauge is in each, the 80% checkpoint fires", async () => {
    const usages: Array<ContextUsage | undefined> = [];
    host = await makeHost({ contextManager: { promptCache: "anthropic" }, extraExtensionFactories: [usageRecorder(usages)] });
    await grow(host, 30);
    const requests = host.agent.chatRequests;
    expect(usages).toHaveLength(requests.length);
    let pairs = 0;
    let above = 0;
    for (let i = 0; i < requests.length; i++) {
      const u = usages[i];
      if (u?.percent == null || u.percent < 70) continue;
      above++;
      const texts = requestTexts(requests[i]!);
      // the agent sees a reading at >= 70%, at most one step (5 points) old
      const lines = texts.filter((t) => GAUGE_RE.test(t));
      expect(lines.length, `request ${i} at ${u.percent}%`).toBeGreaterThan(0);
      const latest = Number(GAUGE_RE.exec(lines.at(-1)!)![1]);
      expect(Math.abs(latest - u.percent)).toBeLessThan(6);
      if (i === 0 || usages[i - 1]?.percent == null || usages[i - 1]!.percent! < 70) continue;
      // the previous request's messages, byte for byte, through its last one (its breakpoint)
      const prev = wire(requests[i - 1]!);
      expect(wire(requests[i]!).slice(0, prev.length), `request ${i}`).toEqual(prev);
      pairs++;
    }
    expect(above).toBeGreaterThan(2);
    expect(pairs).toBeGreaterThan(1);
    // the 80% checkpoint as before: written, and its line says so
    expect(readCheckpointsOnDisk(host.stateDir, KEY).some((c) => c.meta.trigger === "auto-80pct")).toBe(true);
    expect(requests.some((r) => requestTexts(r).some((t) => GAUGE_RE.test(t) && t.includes("Checkpoint saved")))).toBe(true);
  });

  it("anthropic: after a compaction no earlier reading stays in the prompt (the request is written whole anyway)", async () => {
    const usages: Array<ContextUsage | undefined> = [];
    host = await makeHost({ contextManager: { promptCache: "anthropic" }, extraExtensionFactories: [usageRecorder(usages)] });
    await grow(host, 30);
    const before = host.agent.chatRequests.length;
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      host.agent.queue(reply.text(`After ${i}.`));
      await host.runner.handleInbound(KEY, `A short question ${i}.`);
    }
    const requests = host.agent.chatRequests;
    expect(requests.length).toBeGreaterThan(before);
    let checked = 0;
    for (let i = before; i < requests.length; i++) {
      const u = usages[i]?.percent;
      if (u == null) continue;
      checked++;
      // every line in the prompt is this reading's (within a step), none from before the compaction
      for (const t of requestTexts(requests[i]!).filter((x) => GAUGE_RE.test(x))) expect(Math.abs(Number(GAUGE_RE.exec(t)![1]) - u), `request ${i} at ${u}%: ${t}`).toBeLessThan(6);
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("none: the gauge is the last message of each request above 70% and the next request drops it (today's behaviour)", async () => {
    const usages: Array<ContextUsage | undefined> = [];
    host = await makeHost({ contextManager: { promptCache: "none" }, extraExtensionFactories: [usageRecorder(usages)] });
    await grow(host, 30);
    const requests = host.agent.chatRequests;
    let above = 0;
    for (let i = 0; i < requests.length; i++) {
      const u = usages[i];
      if (u?.percent == null || u.percent < 70) continue;
      above++;
      const texts = requestTexts(requests[i]!);
      expect(GAUGE_RE.test(texts.at(-1)!)).toBe(true);
      expect(texts.slice(0, -1).some((t) => GAUGE_RE.test(t))).toBe(false);
    }
    expect(above).toBeGreaterThan(2);
  });
});

/** ~4 KB: over the aged threshold, under the fresh stash */
function midLog(tag: string): string {
  const lines: string[] = [];
  for (let i = 1; i <= 120; i++) lines.push(`${tag} line ${String(i).padStart(3, "0")} fine`);
  return `${lines.join("\n")}\n`;
}

describe("prompt cache: aged offload in a real AgentSession", () => {
  let s: Standalone | undefined;
  beforeEach(() => clearCacheSessions());
  afterEach(async () => {
    await s?.cleanup();
    s = undefined;
  });

  async function session(promptCache: string, window: number) {
    s = await makeStandalone({
      contextWindow: window,
      contextManager: { promptCache, offload: true, offloadAgeTurns: 2, offloadAgedMinChars: 2_000, offloadAgedPreviewChars: 300 },
      tools: ["read", "bash", "artifact_fetch"],
    });
    const tags = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG", "HHH"];
    for (const t of tags) writeFileSync(join(s.cwd, `${t}.log`), midLog(t));
    const seen: Context[] = [];
    const decisions: Array<{ cold: string | null; aging: string | null }> = [];
    s.agent.onChat((c) => {
      seen.push(structuredClone({ messages: c.messages }) as Context);
      const st = [...sessionRegistry().values()].at(-1)?.cache;
      decisions.push({ cold: st?.last.cold ?? null, aging: st?.last.aging ?? null });
    });
    s.agent.queue(...tags.map((t) => reply.tools(["bash", { command: `cat ${t}.log` }])), reply.text("done"));
    const sess = await s.open();
    await s.prompt(sess, "read the logs");
    expect(s.errors).toEqual([]);
    return { seen, decisions };
  }

  it("anthropic: a request changes earlier history only where the policy chose it (and says why); a stand-in stays", async () => {
    const { seen, decisions } = await session("anthropic", 200_000);
    expect(seen.length).toBe(9);
    let rewrites = 0;
    for (let i = 1; i < seen.length; i++) {
      const prev = wire(seen[i - 1]!);
      const same = JSON.stringify(wire(seen[i]!).slice(0, prev.length)) === JSON.stringify(prev);
      if (!same) {
        rewrites++;
        expect(["cold", "pays", "lookback"], `request ${i}`).toContain(decisions[i]!.aging);
      }
      // what was aged once is aged in every later request (the stand-in text is identical)
      for (let k = 0; k < prev.length; k++) if (prev[k]!.includes("[tool output stored off the prompt:")) expect(wire(seen[i]!)[k]).toBe(prev[k]);
    }
    expect(decisions[0]!.cold).toBe("first request");
    expect(decisions.filter((d) => d.aging !== null).length).toBeGreaterThan(0);
    expect(rewrites).toBeLessThanOrEqual(decisions.filter((d) => d.aging !== null && d.aging !== "held").length);
  });

  it("none: results age after the same number of turns as before, no decision is taken", async () => {
    const { seen, decisions } = await session("none", 200_000);
    // request 4 (index 3): two assistant turns follow AAA's result: aged
    const results = (c: Context) => c.messages.filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m));
    expect(results(seen[3]!)[0]).toContain("[tool output stored off the prompt:");
    expect(decisions.every((d) => d.aging === null && d.cold === null)).toBe(true);
  });
});
