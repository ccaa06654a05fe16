/**
 * The cold-moment trim (cache/swap-policy.ts) through the real Pi SDK (AgentRunner on the faux
 * model): after an idle gap past the cache's TTL, a request whose context is past the middle of
 * smart trim's cycle goes out trimmed to the low mark, with smart trim off (the defaults), and
 * the requests after it keep the same messages out, byte for byte (their cache holds). Without
 * the gap, or without a cache (`none`), nothing is trimmed. The gap is lived on the clock the
 * replay uses for recorded pauses (infra/process-services.ts): the host stamps the messages. The run
 * whose first request cold-trims carries context_search from that request on (the marker names it).
 */
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearCacheSessions } from "../helpers/new-process.js";
import { SEARCH_TOOL_NAME } from "../../src/agents/archive/search-tool.js";
import { TRIM_MARKER_TEXT } from "../../src/agents/trim/smart-trim.js";
import { resetLivedClock, skipGap } from "../../src/replay/replay-clock.js";
import { ReplayClock } from "../../src/replay/replay-clock.js";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";

const KEY = "agent:main:telegram:direct:cold";
const wire = (c: Context) => c.messages.map((m) => JSON.stringify(m));
const trimmed = (c: Context) => requestTexts(c).some((t) => t.includes(TRIM_MARKER_TEXT));

describe("cold-moment trim", () => {
  let host: Host | undefined;
  beforeEach(() => {
    clearCacheSessions();
    resetLivedClock();
  });
  afterEach(async () => {
    resetLivedClock();
    await host?.cleanup();
    host = undefined;
  });

  /** window 16k, safe limit 13k (reserve 2k, recall cap 1k): low mark 5.2k, a cold request trims past 9.1k; pi compacts past 14k */
  async function run(promptCache: string, gap: boolean, config: Record<string, unknown> = { smartTrimReserveTokens: 2_000 }): Promise<Context[]> {
    host = await makeHost({ contextManager: { promptCache, ...config, offload: false }, reserveTokens: 2_000 });
    const turn = async (i: number) => {
      host!.agent.queue(reply.text(filler(`Answer ${i}`, 2400)));
      const r = await host!.runner.handleInbound(KEY, filler(`Question ${i}`, 1600));
      expect(r.compactions).toEqual([]);
    };
    for (let i = 0; i < 10; i++) await turn(i);
    if (gap) {
      skipGap(10 * 60_000);
      await ReplayClock.settle();
    }
    await turn(10);
    await turn(11);
    return host.agent.chatRequests;
  }

  it("anthropic: the first request after a gap past the TTL goes out trimmed; the next keeps it, byte for byte", async () => {
    const requests = await run("anthropic", true);
    const before = requests.at(-3)!;
    const cold = requests.at(-2)!;
    const next = requests.at(-1)!;
    expect(trimmed(before)).toBe(false);
    expect(trimmed(cold)).toBe(true);
    // down to about the low mark: fewer messages than the request before the gap held
    expect(cold.messages.length).toBeLessThan(before.messages.length);
    const sent = wire(cold);
    expect(wire(next).slice(0, sent.length)).toEqual(sent);
  });

  it("anthropic: context_search joins at the run start of the run whose first request cold-trims (its marker names the tool)", async () => {
    const requests = await run("anthropic", true);
    const tools = (c: Context) => (c.tools ?? []).map((t) => t.name);
    // nothing archived before the gap: the tool is not sent
    for (const r of requests.slice(0, -2)) expect(tools(r)).not.toContain(SEARCH_TOOL_NAME);
    // the trimmed request and the rest of the session carry it
    expect(trimmed(requests.at(-2)!)).toBe(true);
    expect(tools(requests.at(-2)!)).toContain(SEARCH_TOOL_NAME);
    expect(tools(requests.at(-1)!)).toContain(SEARCH_TOOL_NAME);
  });

  it("the host's reserve wins over smartTrimReserveTokens: pi's 2,000 places the cut, not the key's 16,384 (which would leave no room in a 16k window)", async () => {
    const requests = await run("anthropic", true, {});
    expect(trimmed(requests.at(-3)!)).toBe(false);
    expect(trimmed(requests.at(-2)!)).toBe(true);
    expect(requests.at(-2)!.messages.length).toBeLessThan(requests.at(-3)!.messages.length);
  });

  it("anthropic without the gap: nothing is trimmed (the cache is warm, the context under the limit)", async () => {
    const requests = await run("anthropic", false);
    expect(requests.some(trimmed)).toBe(false);
    // no cold trim ahead, nothing archived: context_search stays out of the prompt
    expect(requests.some((r) => (r.tools ?? []).some((t) => t.name === SEARCH_TOOL_NAME))).toBe(false);
  });

  it("none: no cold moment, nothing is trimmed (today's behaviour)", async () => {
    const requests = await run("none", true);
    expect(requests.some(trimmed)).toBe(false);
  });
});
