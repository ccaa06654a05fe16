/**
 * How many assistant turns a tool result (or a call's long arguments) stays whole before it is
 * shown as handle + preview, under the cache rules a request is prepared for
 * (docs/design.md#aging-under-a-prompt-cache).
 *
 * Under Anthropic's breakpoint rules a swap is cheap only while the swapped message still lies
 * within the provider's lookback (about 20 blocks before the request's breakpoint): the request
 * then re-reads the previous request's entry and writes only the few blocks after the change.
 * Four turns later, with parallel tool calls, the same swap usually lies beyond the lookback and
 * rewrites the whole history. So under those rules aging runs at `promptCacheAgeTurns` (default
 * 1: the result stays whole for the assistant turn that reads it). Under automatic prefix caching
 * and without a cache a swap costs the same at any age, and `offloadAgeTurns` applies as before.
 */
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import type { CacheRules } from "./cache-rules.js";

export function agingAgeUnder(rules: Pick<CacheRules, "family">, config: Pick<ContextManagerConfig, "offloadAgeTurns" | "promptCacheAgeTurns">): number {
  if (config.offloadAgeTurns <= 0) return 0;
  if (rules.family !== "anthropic" || config.promptCacheAgeTurns <= 0) return config.offloadAgeTurns;
  return config.promptCacheAgeTurns;
}
