/** A checkpoint's breakdown with the latest request's estimated cache reuse (`meta.breakdown.cache_reuse`). */
import type { ContextBreakdown } from "../checkpoint/schema.js";
import type { ReuseEstimate } from "../prompt-cost/reuse.js";

export function withCacheReuse(b: ContextBreakdown | null, reuse: ReuseEstimate | null): ContextBreakdown | null {
  if (!b || !reuse || reuse.promptTokens <= 0) return b;
  return { ...b, cache_reuse: { percent: Math.round(reuse.share * 100), prompt_tokens: reuse.promptTokens, cause: reuse.cause, rules: reuse.rules } };
}
