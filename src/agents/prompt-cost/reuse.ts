/**
 * The estimated cache reuse of one request: the share of its prompt the provider's caching
 * rules would read from cache after the request before it, and, when it reused less than that
 * one left cached, why. Billed under the rules the request was prepared for: Anthropic's
 * breakpoint rules (pi-ai's placement) or automatic prefix caching (OpenAI and most others).
 * What `/context` shows.
 */
import { AnthropicBreakpointCache } from "./anthropic-breakpoints.js";
import { OpenAIPrefixCache } from "./prefix-cache.js";
import { type BreakCause, breakCause } from "./break-cause.js";
import type { CostRequest } from "./request.js";

/** Whose rules the estimate follows (the prompt-cache policy's family; "none" has no estimate). */
export type ReuseRules = "anthropic" | "openai";

export interface ReuseEstimate {
  rules: ReuseRules;
  /** read / prompt tokens, 0..1 */
  share: number;
  readTokens: number;
  promptTokens: number;
  /** what the request before left cached */
  previousCached: number;
  cause: BreakCause | null;
}

export function estimateReuse(previous: CostRequest | null, current: CostRequest, rules: ReuseRules = "anthropic"): ReuseEstimate {
  const cache = rules === "anthropic" ? new AnthropicBreakpointCache() : new OpenAIPrefixCache();
  if (previous) cache.bill(previous);
  const before = cache.previous.previousBlocks;
  const bill = cache.bill(current);
  const promptTokens = bill.read + bill.write + bill.uncached;
  return {
    rules,
    share: promptTokens ? bill.read / promptTokens : 0,
    readTokens: bill.read,
    promptTokens,
    previousCached: bill.previousCached,
    cause: previous ? breakCause(bill, before, current.blocks) : null,
  };
}

export const RULES_LABEL: Record<ReuseRules, string> = {
  anthropic: "Anthropic breakpoint rules, pi-ai placement",
  openai: "automatic prefix caching, OpenAI rules",
};

/** How an estimate names its rules (`/context`, `status --breakdown`). */
export function reuseRulesLabel(rules: ReuseRules): string {
  return RULES_LABEL[rules];
}

/** "cache reuse ~62% of 40,000 tokens (estimate: Anthropic breakpoint rules, pi-ai placement); ... broken by: gauge" */
export function formatReuse(e: ReuseEstimate): string {
  const cause = e.cause ? `; less than the request before left cached (${e.previousCached.toLocaleString("en-US")} tokens), broken by: ${e.cause}` : "";
  return `cache reuse ~${Math.round(e.share * 100)}% of ${e.promptTokens.toLocaleString("en-US")} tokens (estimate: ${RULES_LABEL[e.rules]})${cause}`;
}
