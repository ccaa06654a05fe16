/**
 * The process caches of smart trim (engine/trim-hooks.ts), sized by cache-budget.ts.
 * Kept by memory budget, not key count (issue 24): a gateway serves hundreds of keys. Two
 * caches, because what is costly to lose is small: a SmartTrim weighs its relevance index
 * (MBs for a long session), rebuilt off the request path after an eviction, from the key's
 * next request on; its sticky set weighs ~160 bytes per trimmed message and is kept apart,
 * so an evicted key's next SmartTrim trims the same messages and its prompt prefix stays the same.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import type { ContextManagerConfig } from "../context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../context-manager-config.js";
import { BYTES_PER_KEY, type SmartTrim } from "../trim/smart-trim.js";
import { cacheBudgetBytes } from "./cache-shares.js";

export const smartTrims = (): BudgetCache<string, SmartTrim> =>
  globalSingleton("openclaw.contextManager.smartTrims", () => new BudgetCache<string, SmartTrim>("smart trim", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "smartTrims"), (t) => t.approxBytes()));

export const stickySets = (): BudgetCache<string, Set<string>> =>
  globalSingleton("openclaw.contextManager.smartTrimSticky", () => new BudgetCache<string, Set<string>>("smart trim sticky set", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "trimSticky"), (s) => 256 + s.size * BYTES_PER_KEY));

/** Sizes both caches by the configuration (called by applyCacheBudget when it changes). */
export function setTrimBudgets(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  smartTrims().setBudget(cacheBudgetBytes(config, "smartTrims"));
  stickySets().setBudget(cacheBudgetBytes(config, "trimSticky"));
}
