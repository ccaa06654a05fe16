/**
 * The billing models against worked examples built from the providers' documentation
 * (numbers computed by hand in the comments): Anthropic's prompt-caching page (its Pride and
 * Prejudice example, 5-minute / 1-hour TTL, the ~20-block lookback, 1.25× / 2× / 0.1× rates) and
 * OpenAI's prompt-caching guide (1,024 tokens, 128-token steps, gpt-5's cached-input price).
 */
import { describe, expect, it } from "vitest";
import { AnthropicBreakpointCache, OpenAIPrefixCache } from "../../src/agents/prompt-cost/prefix-cache.js";
import { AnthropicAnyPrefixCache, NoCache } from "../../src/replay/billing/models.js";
import { CLAUDE_SONNET_4_5, GPT_5, MINUTE_MS } from "../../src/replay/billing/prices.js";
import type { CostBlock, CostRequest } from "../../src/agents/prompt-cost/prefix-cache.js";
import { SessionCost } from "../../src/replay/billing/session-cost.js";

const b = (hash: string, tokens: number, tag?: CostBlock["tag"]): CostBlock => ({ hash, tokens, ...(tag ? { tag } : {}) });
const req = (blocks: CostBlock[], breakpoints: number[], at: number, outputTokens = 0): CostRequest => ({ blocks, breakpoints, at, outputTokens });

describe("Anthropic breakpoint rules", () => {
  it("the documentation's example: 188,086 tokens written at 1.25x, then read at 0.1x; 21 uncached each time", () => {
    // system: [instructions (65 tokens), the book (188,021) with cache_control]; a 21-token question
    const sys = [b("instr", 65), b("book", 188_021)];
    const s = new SessionCost("a", new AnthropicBreakpointCache(), CLAUDE_SONNET_4_5);
    const first = s.addRequest(req([...sys, b("q1", 21)], [1], 0, 393));
    expect([first.write, first.read, first.uncached]).toEqual([188_086, 0, 21]);
    const second = s.addRequest(req([...sys, b("q2", 21)], [1], 60_000, 393));
    expect([second.write, second.read, second.uncached]).toEqual([0, 188_086, 21]);
    // $: 188,086 x 3.75 + 188,086 x 0.30 + 42 x 3 + 786 x 15, per million = 0.7053225 + 0.0564258 + 0.000126 + 0.01179
    expect(s.totals().dollars).toBeCloseTo(0.7737, 4);
    expect(s.totals().breaks).toMatchObject({ ttl: 0, lookback: 0, other: 0 });
  });

  it("a conversation with the breakpoint on its last user block reads the previous turn's entry", () => {
    const c = new AnthropicBreakpointCache();
    const sys = b("sys", 2000);
    c.bill(req([sys, b("u1", 100)], [0, 1], 0));
    // turn 2, 2 minutes later: the lookback from u2 finds the entry at u1 two blocks back
    const t2 = c.bill(req([sys, b("u1", 100), b("a1", 200), b("u2", 50)], [0, 3], 2 * MINUTE_MS));
    expect([t2.read, t2.write, t2.uncached]).toEqual([2100, 250, 0]);
  });

  it("the lookback: an entry more than 20 blocks before every breakpoint is not found", () => {
    const c = new AnthropicBreakpointCache();
    const history = Array.from({ length: 10 }, (_, i) => b(`h${i}`, 200));
    c.bill(req([b("sys", 2000), ...history], [0, 10], 0));
    const many = Array.from({ length: 21 }, (_, i) => b(`n${i}`, 10));
    const next = c.bill(req([b("sys", 2000), ...history, ...many], [0, 31], 1000));
    // the breakpoint at block 31 checks blocks 31..11; the entry at block 10 is out of reach: only the system entry is read
    expect([next.read, next.write]).toEqual([2000, 2000 + 210]);
    expect(next.sharedPrefix).toBe(4000);
    expect(next.previousCached).toBe(4000);
    const within = new AnthropicBreakpointCache();
    within.bill(req([b("sys", 2000), ...history], [0, 10], 0));
    expect(within.bill(req([b("sys", 2000), ...history, ...many.slice(0, 20)], [0, 30], 1000)).read).toBe(4000);
  });

  it("entries expire 5 minutes after their last use (refreshed on a hit); the 1-hour option keeps them", () => {
    const blocks = [b("sys", 3000), b("u", 10)];
    const five = new AnthropicBreakpointCache();
    five.bill(req(blocks, [0, 1], 0));
    expect(five.bill(req(blocks, [0, 1], 4 * MINUTE_MS)).read).toBe(3010);
    // refreshed at minute 4: still there at minute 8, gone at minute 14
    expect(five.bill(req(blocks, [0, 1], 8 * MINUTE_MS)).read).toBe(3010);
    const cold = five.bill(req(blocks, [0, 1], 14 * MINUTE_MS));
    expect([cold.read, cold.write, cold.expired]).toEqual([0, 3010, true]);
    const hour = new AnthropicBreakpointCache(60 * MINUTE_MS);
    hour.bill(req(blocks, [0, 1], 0));
    expect(hour.bill(req(blocks, [0, 1], 14 * MINUTE_MS)).read).toBe(3010);
  });

  it("1-hour writes are billed at 2x base input", () => {
    const s = new SessionCost("h", new AnthropicBreakpointCache(60 * MINUTE_MS), CLAUDE_SONNET_4_5, "1h");
    s.addRequest(req([b("sys", 1_000_000)], [0], 0));
    expect(s.totals().dollars).toBe(6);
  });

  it("prefixes below the minimum cacheable length are neither written nor read", () => {
    const c = new AnthropicBreakpointCache();
    const small = [b("sys", 500), b("u", 100)];
    expect(c.bill(req(small, [0, 1], 0))).toMatchObject({ read: 0, write: 0, uncached: 600 });
    expect(c.bill(req(small, [0, 1], 1000))).toMatchObject({ read: 0, write: 0, uncached: 600 });
  });
});

describe("cache breaks by cause", () => {
  const sys = b("sys", 2000);
  it("a gauge line under the breakpoint: the next request drops it and rewrites everything after the system prompt", () => {
    const s = new SessionCost("g", new AnthropicBreakpointCache(), CLAUDE_SONNET_4_5);
    s.addRequest(req([sys, b("u1", 500), b("g1", 20, "gauge")], [0, 2], 0));
    const next = s.addRequest(req([sys, b("u1", 500), b("a1", 300), b("r1", 400), b("g2", 20, "gauge")], [0, 4], 1000));
    expect([next.read, next.write, next.cause]).toEqual([2000, 1220, "gauge"]);
  });
  it("an aged swap inside the cached prefix is put down to the aged stand-in", () => {
    const s = new SessionCost("a", new AnthropicBreakpointCache(), CLAUDE_SONNET_4_5);
    s.addRequest(req([sys, b("call", 50), b("result", 3000), b("u2", 10)], [0, 3], 0));
    const next = s.addRequest(req([sys, b("call", 50), b("stand-in", 40, "aged"), b("u2", 10), b("a2", 30), b("u3", 10)], [0, 5], 1000));
    expect([next.read, next.cause]).toEqual([2000, "aged"]);
  });
  it("a TTL that passed, and a change nobody tagged", () => {
    const s = new SessionCost("t", new AnthropicBreakpointCache(), CLAUDE_SONNET_4_5);
    s.addRequest(req([sys, b("u1", 500)], [0, 1], 0));
    expect(s.addRequest(req([sys, b("u1", 500), b("u2", 10)], [0, 2], 6 * MINUTE_MS)).cause).toBe("ttl");
    expect(s.addRequest(req([b("sys-changed", 2000), b("u1", 500), b("u2", 10)], [0, 2], 6 * MINUTE_MS + 1)).cause).toBe("other");
  });
  it("a prefix still shared but out of the lookback is a lookback miss", () => {
    const s = new SessionCost("l", new AnthropicBreakpointCache(), CLAUDE_SONNET_4_5);
    const h = [b("u1", 2000)];
    s.addRequest(req([sys, ...h], [0, 1], 0));
    const tail = Array.from({ length: 25 }, (_, i) => b(`x${i}`, 10));
    const next = s.addRequest(req([sys, ...h, ...tail], [0, 26], 1000));
    expect(next.cause).toBe("lookback");
    expect(s.totals().breakTokens.lookback).toBe(2000);
  });
});

describe("Anthropic, any shared prefix (upper bound)", () => {
  it("reads the longest shared prefix at any block boundary, writes the rest at 1.25x", () => {
    const c = new AnthropicAnyPrefixCache();
    c.bill(req([b("sys", 2000), b("u1", 500), b("g", 20)], [], 0));
    const next = c.bill(req([b("sys", 2000), b("u1", 500), b("a1", 300)], [], 1000));
    expect([next.read, next.write, next.uncached]).toEqual([2500, 300, 0]);
  });
});

describe("OpenAI automatic prefix caching", () => {
  it("1,024 tokens minimum, hits in 128-token steps, writes free, cached input at gpt-5's $0.125", () => {
    const s = new SessionCost("o", new OpenAIPrefixCache(), GPT_5);
    s.addRequest(req([b("sys", 1500), b("u1", 100)], [], 0));
    // shared 1,500: 1,024 + 3 x 128 = 1,408 cached, 92 + 200 uncached
    const next = s.addRequest(req([b("sys", 1500), b("u2", 200)], [], 1000));
    expect([next.read, next.write, next.uncached]).toEqual([1408, 0, 292]);
    // $: (1,600 + 292) x 1.25 + 1,408 x 0.125, per million
    expect(s.totals().dollars).toBeCloseTo((1892 * 1.25 + 1408 * 0.125) / 1e6, 6);
    const small = new OpenAIPrefixCache();
    small.bill(req([b("s", 1000)], [], 0));
    expect(small.bill(req([b("s", 1000), b("u", 10)], [], 1)).read).toBe(0);
  });
});

describe("no cache", () => {
  it("bills every input token at the base rate", () => {
    const s = new SessionCost("n", new NoCache(), CLAUDE_SONNET_4_5);
    s.addRequest(req([b("a", 1_000_000)], [0], 0, 100_000));
    s.addSummarizer({ inputTokens: 1_000_000, outputTokens: 0 });
    // 2M input x $3 + 0.1M output x $15
    expect(s.totals().dollars).toBe(7.5);
  });
});
