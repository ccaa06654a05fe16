/**
 * What a key's latest requests aged (engine/aged-history.ts): each key string kept once, each
 * request a sorted list of small numbers, so the budgeted cache holds many keys (issue 27).
 */
import { describe, expect, it } from "vitest";
import { AgedHistory } from "../../src/agents/engine/aged-history.js";

const ids = (from: number, to: number) => new Set(Array.from({ length: to - from }, (_, i) => `toolu_01ABCDEFGHIJKLMNOPQRSTUV${from + i}`));

describe("aged requests per key", () => {
  it("answers each request's keys, forgets keys no kept request holds, and weighs ~4 bytes per aged result per request", () => {
    const h = new AgedHistory();
    for (let s = 1; s <= 40; s++) h.remember(s, `end${s}`, ids(s, s + 100));
    expect(h.recent.map((r) => r.seq)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
    const r = h.recent[0]!; // request 25: ids 25..124
    expect(h.keysOf(r).has("toolu_01ABCDEFGHIJKLMNOPQRSTUV25")).toBe(true);
    expect(h.keysOf(r).has("toolu_01ABCDEFGHIJKLMNOPQRSTUV124")).toBe(true);
    expect(h.keysOf(r).has("toolu_01ABCDEFGHIJKLMNOPQRSTUV24")).toBe(false);
    expect(h.keysOf(r).has("toolu_01ABCDEFGHIJKLMNOPQRSTUV125")).toBe(false);
    // 115 distinct keys live (25..139), ~30 chars each; 16 requests of 100
    expect(h.approxBytes()).toBeLessThan(160 + 2 * (64 + 2 * 115 + 48 + 60) * 115 / 2 + 16 * (64 + 12 + 400) + 64 * 110);
    expect(h.approxBytes()).toBeLessThan(30_000); // a Set of strings per request: ~170 KB
    h.remember(41, "end41", ids(0, 0));
    expect(h.keysOf(h.recent.at(-1)!).has("toolu_01ABCDEFGHIJKLMNOPQRSTUV30")).toBe(false);
  });
});
