/**
 * Each session's tool call sizes (breakdown/call-sizes.ts), process-wide by session key:
 * OpenClaw's runner makes a new engine (so a new RequestLog) for every inbound message, and
 * without this each run's first breakdown stringified every tool call of the history again
 * (the bench's `first`: 2-3 ms at 2,000 messages, paid per inbound message). Sized by memory
 * (cache-shares.ts `breakdowns`); an evicted key sizes its history once more, off the request path.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { CallSizes } from "../breakdown/call-sizes.js";
import type { ContextManagerConfig } from "../context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../context-manager-config.js";
import { cacheBudgetBytes } from "./cache-shares.js";

export const sessionCallSizes = (): BudgetCache<string, CallSizes> =>
  globalSingleton("openclaw.contextManager.breakdownCallSizes", () => new BudgetCache<string, CallSizes>("breakdown call sizes", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "breakdowns"), (c) => c.approxBytes()));

/** Sizes the cache by the configuration (called by applyCacheBudget when it changes). */
export function setBreakdownBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  sessionCallSizes().setBudget(cacheBudgetBytes(config, "breakdowns"));
}
