/**
 * The estimated cache reuse of one request: the share of its prompt Anthropic's breakpoint
 * rules would read from cache after the request before it (pi-ai's placement), and, when it
 * reused less than that one left cached, why. What `/context` shows.
 */
import { AnthropicBreakpointCache } from "./anthropic-breakpoints.js";
import { type BreakCause, breakCause } from "./break-cause.js";
import type { CostRequest } from "./request.js";

export interface ReuseEstimate {
  /** read / prompt tokens, 0..1 */
  share: number;
  readTokens: number;
  promptTokens: number;
  /** what the request before left cached */
  previousCached: number;
  cause: BreakCause | null;
}

export function estimateReuse(previous: CostRequest | null, current: CostRequest): ReuseEstimate {
  const cache = new AnthropicBreakpointCache();
  if (previous) cache.bill(previous);
  const before = cache.previous.previousBlocks;
  const bill = cache.bill(current);
  const promptTokens = bill.read + bill.write + bill.uncached;
  return {
    share: promptTokens ? bill.read / promptTokens : 0,
    readTokens: bill.read,
    promptTokens,
    previousCached: bill.previousCached,
    cause: previous ? breakCause(bill, before, current.blocks) : null,
  };
}

/** "cache reuse ~62% (Anthropic breakpoint rules, pi placement); broken by: gauge" */
export function formatReuse(e: ReuseEstimate): string {
  const cause = e.cause ? `; less than the request before left cached (${e.previousCached.toLocaleString("en-US")} tokens), broken by: ${e.cause}` : "";
  return `cache reuse ~${Math.round(e.share * 100)}% of ${e.promptTokens.toLocaleString("en-US")} tokens (estimate: Anthropic breakpoint rules, pi-ai placement)${cause}`;
}
