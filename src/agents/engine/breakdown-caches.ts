/**
 * The breakdown's process-wide memories, by session key: OpenClaw's runner makes a new engine
 * (so a new RequestLog) for every inbound message, and these outlive it. Each is sized by
 * memory (cache-shares.ts), not by key count (issue 27: past 64 keys a count bound dropped the
 * phrase of a run's first gauge line), with its hit rate in the debug log:
 * - each key's tool call sizes (without, each run's first breakdown stringified every tool call
 *   of the history again: 2-3 ms at 2,000 messages, per inbound message); an evicted key sizes
 *   its history once more, off the request path;
 * - each key's gauge phrase ("tool results 58% (read 40%)"), so a run's first gauge line has it;
 * - what each key's latest requests had aged (request-log.ts), for what aged since the last
 *   measured reply; an evicted key's next breakdown takes the provider's count as it stands.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { CallSizes } from "../breakdown/call-sizes.js";
import type { ContextManagerConfig } from "../context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../context-manager-config.js";
import { cacheBudgetBytes } from "./cache-shares.js";

/** The gauge line's composition phrase of a key, and the reading it was computed at. */
export interface GaugePhrase {
  text: string;
  tokens: number;
}

/** What a memory of a key's aged requests weighs (request-log.ts keeps its own figure). */
export interface Weighed {
  approxBytes(): number;
}

/** A phrase's entry: the map's entry, the key (~64 chars), the object and its text. */
const phraseBytes = (p: GaugePhrase): number => 256 + 2 * p.text.length;

export const sessionCallSizes = (): BudgetCache<string, CallSizes> =>
  globalSingleton("openclaw.contextManager.breakdownCallSizes", () => new BudgetCache<string, CallSizes>("breakdown call sizes", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "breakdowns"), (c) => c.approxBytes()));

export const gaugePhrases = (): BudgetCache<string, GaugePhrase> =>
  globalSingleton("openclaw.contextManager.gaugePhrasesByBudget", () => new BudgetCache<string, GaugePhrase>("gauge phrase", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "gaugePhrases"), phraseBytes));

export const agedHistories = <T extends Weighed>(): BudgetCache<string, T> =>
  globalSingleton("openclaw.contextManager.agedHistoriesByBudget", () => new BudgetCache<string, T>("aged requests", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "agedHistories"), (h) => h.approxBytes()));

/** Sizes the caches by the configuration (called by applyCacheBudget when it changes). */
export function setBreakdownBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  sessionCallSizes().setBudget(cacheBudgetBytes(config, "breakdowns"));
  gaugePhrases().setBudget(cacheBudgetBytes(config, "gaugePhrases"));
  agedHistories().setBudget(cacheBudgetBytes(config, "agedHistories"));
}
