/**
 * Whose prompt-cache rules our prompt changes follow, from config (docs/configuration.md#prompt-cache)
 * or the host's model: `anthropic` breakpoints, `openai` automatic prefix caching (most providers),
 * `none` (every request billed whole).
 */
import type { ContextManagerConfig } from "../config/context-manager-config.js";

export type CacheFamily = "anthropic" | "openai" | "none";

export interface CacheRules {
  family: CacheFamily;
  ttlMs: number;
  /** blocks before its own breakpoint a request looks back for an entry (anthropic) */
  lookbackBlocks: number;
  /** price of a token written to the cache and of one read from it, against uncached input */
  writePrice: number;
  readPrice: number;
}

/** What the host says of the model a request goes to (any field may be unknown). */
export interface HostModel {
  provider?: string | null;
  api?: string | null;
  id?: string | null;
  /** the retention the host asks the provider for ("long": 1 hour) */
  retention?: string | null;
}

export const FIVE_MINUTES_MS = 5 * 60_000;
export const ONE_HOUR_MS = 60 * 60_000;

/** A breakpoint finds an entry at most ~20 blocks back (Anthropic's prompt-caching page). */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;

/** Claude keeps Anthropic's rules wherever it is served; an unknown provider caches any shared prefix, as most do. */
export function familyOfModel(model: HostModel | undefined): CacheFamily {
  const anthropic = lower(model?.api) === "anthropic-messages" || lower(model?.provider) === "anthropic";
  return anthropic || lower(model?.id).includes("claude") ? "anthropic" : "openai";
}

/** The rules a request is prepared under: config first, then the host's model. */
export function cacheRulesFor(config: Pick<ContextManagerConfig, "promptCache" | "promptCacheTtl">, model: HostModel | undefined): CacheRules {
  const family = config.promptCache === "auto" ? familyOfModel(model) : config.promptCache;
  const long = config.promptCacheTtl === "1h" || (config.promptCacheTtl === "auto" && lower(model?.retention) === "long");
  const ttlMs = long ? ONE_HOUR_MS : FIVE_MINUTES_MS;
  if (family === "anthropic") return { family, ttlMs, lookbackBlocks: ANTHROPIC_LOOKBACK_BLOCKS, writePrice: long ? 2 : 1.25, readPrice: 0.1 };
  if (family === "openai") return { family, ttlMs, lookbackBlocks: Number.POSITIVE_INFINITY, writePrice: 1, readPrice: 0.5 };
  return { family, ttlMs: 0, lookbackBlocks: 0, writePrice: 1, readPrice: 1 };
}

/**
 * Assistant turns a tool result stays whole (docs/design.md#aging-under-a-prompt-cache): under breakpoint
 * rules a swap is cheap only within the lookback, so early; elsewhere it costs the same at any age.
 */
export function agingAgeUnder(rules: Pick<CacheRules, "family">, config: Pick<ContextManagerConfig, "offloadAgeTurns" | "promptCacheAgeTurns">): number {
  if (config.offloadAgeTurns <= 0) return 0;
  if (rules.family !== "anthropic" || config.promptCacheAgeTurns <= 0) return config.offloadAgeTurns;
  return config.promptCacheAgeTurns;
}

const lower = (v: string | null | undefined): string => (typeof v === "string" ? v.toLowerCase() : "");
