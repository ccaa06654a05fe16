/**
 * Smart trim's batch under a prompt cache (cache/swap-policy.ts) on worked examples, Anthropic's
 * 5-minute rates (write 1.25x, read 0.1x), and a declined batch through a real SmartTrim: nothing
 * is left out, and the same batch is offered again on the next request.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { cacheRulesFor } from "../../src/agents/cache/cache-rules.js";
import { CacheSession } from "../../src/agents/cache/cache-session.js";
import { coldForTrim, coldTrimAbove, trimPays } from "../../src/agents/cache/swap-policy.js";
import { SmartTrim, type TrimOffer } from "../../src/agents/trim/smart-trim.js";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";

const ANTHROPIC = cacheRulesFor({ promptCache: "anthropic", promptCacheTtl: "5m" }, undefined);

function sessionAfter(requests: number, growth: number): CacheSession {
  const s = new CacheSession();
  s.requests = requests;
  s.growth = growth;
  return s;
}

describe("trim policy", () => {
  it("a cold request trims past the middle of the cycle: limit 46,616, low mark 18,646 -> 32,631", () => {
    expect(coldTrimAbove(46_616, 0.6)).toBe(Math.floor((Math.floor(46_616 * 0.4) + 46_616) / 2));
    expect(coldTrimAbove(46_616, 0.6)).toBe(32_631);
    expect(coldForTrim("ttl")).toBe(true);
    expect(coldForTrim("rewritten")).toBe(true);
    // a process's first request may find the provider's cache warm (a restart within the TTL)
    expect(coldForTrim("first request")).toBe(false);
    expect(coldForTrim(null)).toBe(false);
  });

  it("a warm batch of 28k out of 47k, 40 requests in, 500 a request: pays", () => {
    // left 19k, 28.6k to the 47.6k threshold: H = 57.2, 40 ln(1 + 57.2/40) = 35.5 requests
    // cost (47k - 28k) x 1.25 - 47k x 0.1 = 19,050; savings 28k x 0.1 x 35.5 = 99,400
    expect(trimPays({ rules: ANTHROPIC, session: sessionAfter(40, 500), tokens: 47_000, compactAt: 47_600, saved: 28_000 })).toBe(true);
  });

  it("a small warm batch on a fresh prompt: held", () => {
    // 2k of 47k, 1 request in, 5k a request: H = 0.52, remaining 1 (the floor)
    // cost 45k x 1.25 - 4.7k = 51,550 against 2k x 0.1 x 1 = 200
    expect(trimPays({ rules: ANTHROPIC, session: sessionAfter(1, 5_000), tokens: 47_000, compactAt: 47_600, saved: 2_000 })).toBe(false);
  });

  it("a declined batch leaves nothing out, and is offered again next request", () => {
    const messages: AgentMessage[] = [];
    for (let i = 0; i < 40; i++) {
      messages.push({ role: "user", content: `question ${i} about parsing ${"lorem ".repeat(200)}`, timestamp: 1_000 + 2 * i } as AgentMessage);
      messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${i} ${"ipsum ".repeat(200)}` }], timestamp: 1_001 + 2 * i } as unknown as AgentMessage);
    }
    const t = new SmartTrim();
    const { query, requestAt } = recallQueryOf(messages);
    const settings = { safeLimit: 10_000, headroom: 0.6, keepRecent: 6, marker: true };
    const offers: TrimOffer[] = [];
    const declined = t.apply({ messages, tokens: 20_000, query, requestAt, accept: (o) => (offers.push(o), false) }, settings);
    expect(offers).toHaveLength(1);
    expect(offers[0]!.tokens).toBeGreaterThan(0);
    expect(declined.messages).toBe(messages);
    expect(declined.newlyTrimmed).toEqual([]);
    expect(t.hasTrimmed).toBe(false);
    // the next request (one more message): the same messages, and more, offered and taken
    const next = [...messages, { role: "user", content: "question 40 about parsing", timestamp: 5_000 } as AgentMessage];
    const q2 = recallQueryOf(next);
    const taken = t.apply({ messages: next, tokens: 20_100, query: q2.query, requestAt: q2.requestAt, accept: (o) => (offers.push(o), true) }, settings);
    expect(offers).toHaveLength(2);
    expect(offers[1]!.first).toBeLessThanOrEqual(offers[0]!.first);
    expect(taken.newlyTrimmed.length).toBeGreaterThan(0);
    expect(taken.messages.length).toBeLessThan(next.length);
    expect(t.hasTrimmed).toBe(true);
  });
});
