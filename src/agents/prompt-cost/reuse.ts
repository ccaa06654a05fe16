/**
 * What `/context` shows: the share of a request's prompt the provider would read from cache after
 * the request before, under the rules it was prepared for, and why when it reused less than was left.
 */
import { AnthropicBreakpointCache, OpenAIPrefixCache } from "./prefix-cache.js";
import type { BlockTag, CostBlock, CostRequest, RequestBill } from "./prefix-cache.js";

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

/** How an estimate names its rules (`/context`, `status --breakdown`). */
export const RULES_LABEL: Record<ReuseRules, string> = {
  anthropic: "Anthropic breakpoint rules, pi-ai placement",
  openai: "automatic prefix caching, OpenAI rules",
};

/** "cache reuse ~62% of 40,000 tokens (estimate: Anthropic breakpoint rules, pi-ai placement); ... broken by: gauge" */
export function formatReuse(e: ReuseEstimate): string {
  const cause = e.cause ? `; less than the request before left cached (${e.previousCached.toLocaleString("en-US")} tokens), broken by: ${e.cause}` : "";
  return `cache reuse ~${Math.round(e.share * 100)}% of ${e.promptTokens.toLocaleString("en-US")} tokens (estimate: ${RULES_LABEL[e.rules]})${cause}`;
}

/** Why a request reused less than the previous one left cached: expiry, a change (its block's tag), lookback. */
export type BreakCause = BlockTag | "ttl" | "lookback" | "other";

export function breakCause(bill: RequestBill, previous: readonly CostBlock[], current: readonly CostBlock[]): BreakCause | null {
  if (bill.previousCached <= 0 || bill.read >= bill.previousCached) return null;
  if (bill.expired) return "ttl";
  if (bill.sharedPrefix < bill.previousCached) return current[bill.divergedAt]?.tag ?? previous[bill.divergedAt]?.tag ?? "other";
  return "lookback";
}
