/**
 * The cache-reuse estimate (prompt-cost/reuse.ts) follows the rules the request was prepared
 * for and says which: a 10,000-token request after a 9,000-token one that it extends.
 */
import { describe, expect, it } from "vitest";
import { estimateReuse, formatReuse } from "../../src/agents/prompt-cost/reuse.js";
import type { CostRequest } from "../../src/agents/prompt-cost/prefix-cache.js";

const block = (hash: string, tokens: number) => ({ hash, tokens });
const before: CostRequest = { blocks: [block("sys", 2_000), block("m1", 7_000)], breakpoints: [0, 1], at: 0, outputTokens: 0 };
const after: CostRequest = { blocks: [block("sys", 2_000), block("m1", 7_000), block("m2", 1_000)], breakpoints: [0, 2], at: 1_000, outputTokens: 0 };

describe("cache reuse estimate by rules", () => {
  it("anthropic: the previous breakpoint's 9,000 tokens read", () => {
    const e = estimateReuse(before, after, "anthropic");
    expect(e.readTokens).toBe(9_000);
    expect(formatReuse(e)).toBe("cache reuse ~90% of 10,000 tokens (estimate: Anthropic breakpoint rules, pi-ai placement)");
  });

  it("openai: the shared prefix in 128-token steps past 1,024 (8,960 of 9,000)", () => {
    const e = estimateReuse(before, after, "openai");
    expect(e.readTokens).toBe(1_024 + 62 * 128);
    expect(formatReuse(e)).toBe("cache reuse ~90% of 10,000 tokens (estimate: automatic prefix caching, OpenAI rules)");
  });
});
