/**
 * Each process cache's share of `cacheMemoryMiB` (docs/configuration.md#memory). A gateway
 * serves hundreds of keys from one process: what is cached is sized by memory, and what falls
 * out is read again from disk in O(new messages) (issue 24). Applied by cache-budget.ts.
 */
import type { ContextManagerConfig } from "../context-manager-config.js";

// smartTrims: each key's SmartTrim (its relevance index weighs ~9 bytes per indexed char);
// trimSticky: the keys' sticky trimmed sets alone, kept when a SmartTrim is evicted (issue 26);
// breakdowns: each key's tool call sizes (~130 bytes per call, engine/breakdown-caches.ts)
export const CACHE_SHARES = { archives: 0.44, sessions: 0.35, agedOutputs: 0.1, archiveTails: 0.05, smartTrims: 0.04, trimSticky: 0.01, breakdowns: 0.01 } as const;

export type CachePart = keyof typeof CACHE_SHARES;

export function cacheBudgetBytes(config: Pick<ContextManagerConfig, "cacheMemoryMiB">, part: CachePart): number {
  return Math.floor(config.cacheMemoryMiB * 2 ** 20 * CACHE_SHARES[part]);
}
