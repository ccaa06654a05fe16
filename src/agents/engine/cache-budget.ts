/**
 * The per-key process caches that outlive an engine (OpenClaw's runner makes a new engine for
 * every inbound message) and each cache's share of `cacheMemoryMiB`
 * (docs/configuration.md#memory). A gateway serves hundreds of keys from one process: what is
 * cached is sized by memory, not by key count, and what falls out is read again from disk in
 * O(new messages) (issue 24). Every cache keeps its hit rate in the debug log.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../config/context-manager-config.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import { setKnowledgeFollowerBudget } from "../archive/knowledge-store.js";
import type { CallSizes } from "../breakdown/call-sizes.js";
import { BYTES_PER_KEY, type SmartTrim } from "../trim/smart-trim.js";
import type { AgedHistory } from "./aged-history.js";

// smartTrims: each key's SmartTrim (its relevance index weighs ~9 bytes per indexed char);
// trimSticky: the keys' sticky trimmed sets alone, kept when a SmartTrim is evicted (issue 26);
// breakdowns: each key's breakdown memory (call sizes, gauge phrase, aged requests);
// knowledgeIndexes: the search indexes of knowledge.jsonl files (archive worker), ~5 bytes per file
// byte; knowledgeFollowers: the records the appends dedup against (this thread), ~1.5 per file byte
export const CACHE_SHARES = {
  archives: 0.38,
  sessions: 0.35,
  agedOutputs: 0.1,
  archiveTails: 0.05,
  smartTrims: 0.04,
  trimSticky: 0.01,
  breakdowns: 0.03,
  knowledgeIndexes: 0.03,
  knowledgeFollowers: 0.01,
} as const;

export type CachePart = keyof typeof CACHE_SHARES;

export function cacheBudgetBytes(config: Pick<ContextManagerConfig, "cacheMemoryMiB">, part: CachePart): number {
  return Math.floor(config.cacheMemoryMiB * 2 ** 20 * CACHE_SHARES[part]);
}

/**
 * Smart trim (engine/trim-hooks.ts) keeps two caches, because what is costly to lose is small:
 * a SmartTrim weighs its relevance index (MBs for a long session), rebuilt off the request path
 * after an eviction; its sticky set weighs ~160 bytes per trimmed message and is kept apart, so
 * an evicted key's next SmartTrim trims the same messages and its prompt prefix stays the same.
 */
export const smartTrims = (): BudgetCache<string, SmartTrim> =>
  globalSingleton("openclaw.contextManager.smartTrims", () => new BudgetCache<string, SmartTrim>("smart trim", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "smartTrims"), (t) => t.approxBytes()));

export const stickySets = (): BudgetCache<string, Set<string>> =>
  globalSingleton("openclaw.contextManager.smartTrimSticky", () => new BudgetCache<string, Set<string>>("smart trim sticky set", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "trimSticky"), (s) => 256 + s.size * BYTES_PER_KEY));

/** The gauge line's composition phrase of a key, and the reading it was computed at. */
export interface GaugePhrase {
  text: string;
  tokens: number;
}

/**
 * What the breakdown (engine/request-log.ts) remembers of a key, weighed and evicted as one:
 * - its tool call sizes (without, each run's first breakdown stringified every tool call of the
 *   history again: 2-3 ms at 2,000 messages, per inbound message); an evicted key sizes its
 *   history once more, off the request path;
 * - its gauge phrase ("tool results 58% (read 40%)"), so a run's first gauge line has it;
 * - what its latest requests had aged, for what aged since the last measured reply; an evicted
 *   key's next breakdown takes the provider's count as it stands.
 * Each part is made when first needed.
 */
export interface BreakdownMemory {
  calls: CallSizes | null;
  phrase: GaugePhrase | null;
  aged: AgedHistory | null;
}

/** The entry (~256 bytes: map entry, key, object), the call sizes, the phrase's text, the aged requests. */
function memoryBytes(m: BreakdownMemory): number {
  return 256 + (m.calls?.approxBytes() ?? 0) + (m.phrase ? 2 * m.phrase.text.length : 0) + (m.aged?.approxBytes() ?? 0);
}

export const breakdownMemories = (): BudgetCache<string, BreakdownMemory> =>
  globalSingleton("openclaw.contextManager.breakdownMemories", () => new BudgetCache<string, BreakdownMemory>("breakdown memory", cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "breakdowns"), memoryBytes));

/** The key's breakdown memory, made (empty) when it has none. */
export function breakdownMemory(key: string): BreakdownMemory {
  const all = breakdownMemories();
  let m = all.get(key);
  if (!m) {
    m = { calls: null, phrase: null, aged: null };
    all.set(key, m);
  }
  return m;
}

/** Sizes the breakdown memories by the configuration (applyCacheBudget; tests). */
export function setBreakdownBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  breakdownMemories().setBudget(cacheBudgetBytes(config, "breakdowns"));
}

let applied: number | null = null;

/**
 * Sizes the process caches that live apart from an engine (the worker's loaded archives, the
 * append tails, the knowledge indexes and followers, smart trim's two caches, the breakdown
 * memories) by the configuration: O(1) unless it changed.
 */
export function applyCacheBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  if (applied === config.cacheMemoryMiB) return;
  applied = config.cacheMemoryMiB;
  // the tails are followed where the appends run: the worker (and this thread when none can run)
  archiveWorker().setBudget(cacheBudgetBytes(config, "archives"), cacheBudgetBytes(config, "archiveTails"), cacheBudgetBytes(config, "knowledgeIndexes"));
  setKnowledgeFollowerBudget(cacheBudgetBytes(config, "knowledgeFollowers"));
  smartTrims().setBudget(cacheBudgetBytes(config, "smartTrims"));
  stickySets().setBudget(cacheBudgetBytes(config, "trimSticky"));
  setBreakdownBudget(config);
}
