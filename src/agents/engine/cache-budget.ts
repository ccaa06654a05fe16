/**
 * The process-wide caches' share of `cacheMemoryMiB` (docs/configuration.md#memory). A gateway
 * serves hundreds of keys from one process: what is cached is sized by memory, and what falls
 * out is read again from disk in O(new messages) (issue 24).
 */
import type { ContextManagerConfig } from "../context-manager-config.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import { cacheBudgetBytes } from "./cache-shares.js";
import { setTrimBudgets } from "./trim-caches.js";
import { setBreakdownBudget } from "./breakdown-caches.js";
import { setKnowledgeFollowerBudget } from "../archive/knowledge-store.js";

export { CACHE_SHARES, cacheBudgetBytes, type CachePart } from "./cache-shares.js";

let applied: number | null = null;

/**
 * Sizes the process caches that live apart from an engine (the worker's loaded archives, the
 * append tails, the knowledge indexes and followers, smart trim's two caches, the breakdown sizes) by the configuration: O(1) unless it changed.
 */
export function applyCacheBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  if (applied === config.cacheMemoryMiB) return;
  applied = config.cacheMemoryMiB;
  // the tails are followed where the appends run: the worker (and this thread when none can run)
  archiveWorker().setBudget(cacheBudgetBytes(config, "archives"), cacheBudgetBytes(config, "archiveTails"), cacheBudgetBytes(config, "knowledgeIndexes"));
  setKnowledgeFollowerBudget(cacheBudgetBytes(config, "knowledgeFollowers"));
  setTrimBudgets(config);
  setBreakdownBudget(config);
}
