/**
 * Each process cache's share of `cacheMemoryMiB` (docs/configuration.md#memory). A gateway
 * serves hundreds of keys from one process: what is cached is sized by memory, and what falls
 * out is read again from disk in O(new messages) (issue 24). Applied by cache-budget.ts.
 */
import type { ContextManagerConfig } from "../context-manager-config.js";

// smartTrims: each key's SmartTrim (its relevance index weighs ~9 bytes per indexed char);
// trimSticky: the keys' sticky trimmed sets alone, kept when a SmartTrim is evicted (issue 26);
// breakdowns: each key's tool call sizes (12 bytes per reply with calls + 8 per call + ~1 KB,
// engine/breakdown-caches.ts); gaugePhrases and agedHistories: each key's gauge phrase and what
// its latest requests aged (engine/request-log.ts), bounded by memory instead of 64 keys (issue 27);
// knowledgeIndexes: the search indexes of knowledge.jsonl files (archive worker), ~5 bytes per file
// byte; knowledgeFollowers: the records the appends dedup against (this thread), ~1.5 per file byte
export const CACHE_SHARES = {
  archives: 0.38,
  sessions: 0.35,
  agedOutputs: 0.1,
  archiveTails: 0.05,
  smartTrims: 0.04,
  trimSticky: 0.01,
  breakdowns: 0.015,
  agedHistories: 0.01,
  gaugePhrases: 0.005,
  knowledgeIndexes: 0.03,
  knowledgeFollowers: 0.01,
} as const;

export type CachePart = keyof typeof CACHE_SHARES;

export function cacheBudgetBytes(config: Pick<ContextManagerConfig, "cacheMemoryMiB">, part: CachePart): number {
  return Math.floor(config.cacheMemoryMiB * 2 ** 20 * CACHE_SHARES[part]);
}
