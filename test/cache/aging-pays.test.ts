/**
 * Aging under Anthropic's breakpoint rules through the real Pi SDK (a standalone pi
 * AgentSession on the faux model): a result that comes due where swapping it would make the
 * request write a long stretch of history again (here a long user message after it) for a few
 * hundred tokens saved is held, the request carries the previous one unchanged; once the cache
 * is cold (more than the 5-minute TTL since the last request, on the messages' clock) it is
 * swapped in. Under `none` the same result ages on the same request as it always did.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { clearCacheSessions } from "../helpers/new-process.js";
import { filler, reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

const STAND_IN = "[tool output stored off the prompt:";
const wire = (c: Context) => c.messages.map((m) => JSON.stringify(m));

/** ~4 KB: over the aged threshold, under the fresh stash */
function midLog(tag: string): string {
  const lines: string[] = [];
  for (let i = 1; i <= 120; i++) lines.push(`${tag} line ${String(i).padStart(3, "0")} fine`);
  return `${lines.join("\n")}\n`;
}

describe("prompt cache: aging is held when it does not pay and released when the cache is cold", () => {
  let s: Standalone | undefined;
  let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
  beforeEach(() => {
    clearCacheSessions();
    // only Date: the SDK's timers run as usual; the session's clock is moved by hand
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(clock);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await s?.cleanup();
    s = undefined;
  });

  async function run(promptCache: string) {
    s = await makeStandalone({
      contextWindow: 200_000,
      contextManager: { promptCache, offload: true, offloadAgeTurns: 2, promptCacheAgeTurns: 2, offloadAgedMinChars: 2_000, offloadAgedPreviewChars: 300, searchTool: false },
      tools: ["bash", "artifact_fetch"],
    });
    writeFileSync(join(s.cwd, "AAA.log"), midLog("AAA"));
    const seen: Context[] = [];
    const decisions: Array<{ cold: string | null; aging: string | null }> = [];
    s.agent.onChat((c) => {
      seen.push(structuredClone({ messages: c.messages }) as Context);
      const st = [...sessionRegistry().values()].at(-1)?.cache;
      decisions.push({ cold: st?.last.cold ?? null, aging: st?.last.aging ?? null });
    });
    const sess = await s.open();
    const step = async (ms: number, text: string) => {
      clock += ms;
      vi.setSystemTime(clock);
      await s!.prompt(sess, text);
    };
    s.agent.queue(reply.tools(["bash", { command: "cat AAA.log" }]), reply.text("read it"));
    await step(0, "read AAA.log");
    // a long message after the result: swapping the result makes the next request write it again
    s.agent.queue(reply.text("noted"));
    await step(20_000, filler("A long specification to keep in mind", 24_000));
    // AAA's result is now two assistant turns old: due
    s.agent.queue(reply.text("ok"));
    await step(20_000, "next");
    s.agent.queue(reply.text("ok again"));
    await step(20_000, "and next");
    // six minutes idle: the provider's 5-minute entries are gone
    s.agent.queue(reply.text("back"));
    await step(6 * 60_000, "back after a break");
    expect(s.errors).toEqual([]);
    return { seen, decisions };
  }

  const hasStandIn = (c: Context) => c.messages.some((m) => m.role === "toolResult" && JSON.stringify(m).includes(STAND_IN));

  it("anthropic: held while warm (each request holds the previous one), swapped in on the first cold request", async () => {
    const { seen, decisions } = await run("anthropic");
    expect(seen.length).toBe(6);
    // requests 4 and 5 (index 3, 4): the result is due, the swap would rewrite ~6k tokens for ~900 saved
    for (const i of [3, 4]) {
      expect(decisions[i]!.aging, `request ${i}`).toBe("held");
      expect(hasStandIn(seen[i]!), `request ${i}`).toBe(false);
      const prev = wire(seen[i - 1]!);
      expect(wire(seen[i]!).slice(0, prev.length), `request ${i}`).toEqual(prev);
    }
    // request 6, after the idle gap: cold, swapped
    expect(decisions[5]).toEqual({ cold: "ttl", aging: "cold" });
    expect(hasStandIn(seen[5]!)).toBe(true);
  });

  it("none: the result ages as soon as it is due", async () => {
    const { seen, decisions } = await run("none");
    expect(hasStandIn(seen[3]!)).toBe(true);
    expect(decisions.every((d) => d.aging === null)).toBe(true);
  });
});
