/**
 * The swap's price (cache/swap-policy.ts) on worked examples, in units of one uncached input
 * token, with Anthropic's documented rates: 5-minute write 1.25x, 1-hour write 2x, read 0.1x.
 */
import { describe, expect, it } from "vitest";
import { expectedRemaining, MAX_REMAINING, swapCost, swapPays, swapSavings } from "../../src/agents/cache/swap-policy.js";

const FIVE_MIN = { writePrice: 1.25, readPrice: 0.1 };
const ONE_HOUR = { writePrice: 2, readPrice: 0.1 };

describe("swap price", () => {
  it("a swap inside the lookback: 12,500 tokens written again for 2,000 saved", () => {
    const c = { rewritten: 12_500, saved: 2_000, remaining: 10, ...FIVE_MIN };
    // (12,500 - 2,000) x 1.25 - 12,500 x 0.1 = 13,125 - 1,250
    expect(swapCost(c)).toBeCloseTo(11_875, 6);
    // 2,000 x 0.1 x 10
    expect(swapSavings(c)).toBeCloseTo(2_000, 6);
    expect(swapPays(c)).toBe(false);
    // 60 requests to go: 12,000 saved > 11,875
    expect(swapPays({ ...c, remaining: 60 })).toBe(true);
    expect(swapPays({ ...c, remaining: 59 })).toBe(false);
  });

  it("the whole 100k prompt written again: pays only for a large batch or a long tail", () => {
    const c = { rewritten: 100_000, saved: 5_000, remaining: 100, ...FIVE_MIN };
    // 95,000 x 1.25 - 10,000 = 108,750 against 5,000 x 0.1 x 100 = 50,000
    expect(swapCost(c)).toBeCloseTo(108_750, 6);
    expect(swapPays(c)).toBe(false);
    // a batch of 10,000: 90,000 x 1.25 - 10,000 = 102,500 against 200,000
    expect(swapPays({ ...c, saved: 10_000, remaining: 200 })).toBe(true);
  });

  it("1-hour entries: writes at 2x make the same swap dearer", () => {
    const c = { rewritten: 12_500, saved: 2_000, remaining: 60, ...ONE_HOUR };
    // 10,500 x 2 - 1,250 = 19,750 against 12,000
    expect(swapCost(c)).toBeCloseTo(19_750, 6);
    expect(swapPays(c)).toBe(false);
    expect(swapPays({ ...c, remaining: 99 })).toBe(true);
  });

  it("a swap that takes out most of what it rewrites costs less than reading it", () => {
    // 1,000 written again, 950 of them taken out: 50 x 1.25 - 100 < 0
    const c = { rewritten: 1_000, saved: 950, remaining: 1, ...FIVE_MIN };
    expect(swapCost(c)).toBeCloseTo(-37.5, 6);
    expect(swapPays(c)).toBe(true);
  });

  it("expected remaining requests: n ln(1 + H / n), the mean of the Copernican prior cut at the horizon", () => {
    // 30 requests so far, 150k to go at 1k a request (H = 150): 30 ln 6 = 53.75 (the median was 30)
    expect(expectedRemaining(30, 50_000, 200_000, 1_000)).toBeCloseTo(30 * Math.log(6), 6);
    expect(expectedRemaining(30, 50_000, 200_000, 1_000)).toBeCloseTo(53.75, 2);
    // 300 so far, 20 requests of room left: 300 ln(16/15) = 19.36, under the room left
    expect(expectedRemaining(300, 180_000, 200_000, 1_000)).toBeCloseTo(19.36, 2);
    // 200 so far, H = 200 (the bound): 200 ln 2 = 138.6, not the 200 the median gave
    expect(expectedRemaining(200, 1_000, 200_000, 1)).toBeCloseTo(138.63, 2);
    // the first request: n = 1, H = 199: ln 200 = 5.30
    expect(expectedRemaining(0, 1_000, 200_000, 1_000)).toBeCloseTo(Math.log(200), 6);
    // bounds: a long session approaches H = MAX_REMAINING from below; past the compaction point, 1
    expect(expectedRemaining(10_000, 1_000, 200_000, 1)).toBeCloseTo(198.03, 2);
    expect(expectedRemaining(10_000, 1_000, 200_000, 1)).toBeLessThanOrEqual(MAX_REMAINING);
    expect(expectedRemaining(50, 210_000, 200_000, 1_000)).toBe(1);
  });
});
