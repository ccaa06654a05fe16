/**
 * The per-key process caches that outlive an engine (OpenClaw's runner makes a new engine for
 * every inbound message) and each cache's share of `cacheMemoryMiB`
 * (docs/configuration.md#memory). A gateway serves hundreds of keys from one process: what is
 * cached is sized by memory, not by key count, and what falls out is read again from disk in
 * O(new messages) (issue 24). Every cache keeps its hit rate in the debug log.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { fileStores } from "../../infra/file-stores.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../config/context-manager-config.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import { knowledgeFollowers } from "../archive/knowledge-store.js";
import { refsCache } from "../artifacts/store.js";
import { CacheSession } from "../cache/cache-session.js";
import { Session } from "./session.js";

// sessions: each key's Session (session.ts): the plugin's slots of the key (0.35 when they were
// a registry apart), its SmartTrim (relevance index ~9 bytes per indexed char) and sticky set,
// aged outputs, breakdown memory and prompt-cache memory (0.18: the sum of the shares those
// caches had apart: aged outputs 0.1, smart trims 0.04, sticky sets 0.01, breakdowns 0.03);
// knowledgeIndexes: the search indexes of knowledge.jsonl files (archive worker), ~5 bytes per file
// byte; knowledgeFollowers: the records the appends dedup against (this thread), ~1.5 per file byte;
// artifactRefs: the handles each key's refs log names (~96 bytes a handle; a fixed 8 MiB before)
export const CACHE_SHARES = {
  archives: 0.36,
  sessions: 0.53,
  archiveTails: 0.05,
  knowledgeIndexes: 0.03,
  knowledgeFollowers: 0.01,
  artifactRefs: 0.02,
} as const;

export type CachePart = keyof typeof CACHE_SHARES;

export function cacheBudgetBytes(config: Pick<ContextManagerConfig, "cacheMemoryMiB">, part: CachePart): number {
  return Math.floor(config.cacheMemoryMiB * 2 ** 20 * CACHE_SHARES[part]);
}

/**
 * The registry of Sessions (session.ts), one per state dir and canonical key, weighed as units:
 * over the budget the least recently used are shed first (their slots' histories, their SmartTrim, then their aged
 * outputs and call sizes), then evicted whole (one holding what is not a cache is emptied of its
 * caches instead, session.ts `lasting`). It holds what the per-feature caches held (the
 * plugin's slots, smart trims and their sticky sets, aged outputs, breakdown memories, the
 * prompt-cache policy's memory), under their summed shares.
 */
const sessions = (): BudgetCache<string, Session> =>
  globalSingleton("openclaw.contextManager.sessions", () => new BudgetCache<string, Session>(
    "session",
    cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions"),
    (s) => s.approxBytes(),
    undefined,
    (_key, s) => s.shed(),
    (_key, s) => sessions().stats().entries <= MAX_SESSIONS_KEPT && s.holdsLasting() && (s.emptyCaches(), true),
  ));

/**
 * How many Sessions the registry keeps at most when evicting: past it a Session holding lasting
 * state is evicted too (the least recent first), so a gateway that sees ever new keys stays
 * bounded; the per-key maps this state lived in before were capped at 1,000 and 4,096 entries.
 */
export const MAX_SESSIONS_KEPT = 4_096;

const idOf = (stateDir: string, sessionKey: string): string => `${stateDir}\u0000${sessionKey}`;

/** The Session of (stateDir, key), made when missing; made the most recent. */
export function sessionAt(stateDir: string, sessionKey: string): Session {
  return sessionOf(idOf(stateDir, sessionKey));
}

/** The Session of an id `stateDir\0key` (the request log's key), made when missing. */
export function sessionOf(id: string): Session {
  const all = sessions();
  let s = all.get(id);
  if (!s) {
    const cut = id.indexOf("\u0000");
    s = new Session(cut < 0 ? "" : id.slice(0, cut), cut < 0 ? id : id.slice(cut + 1));
    all.set(id, s);
  }
  return s;
}

/** The Session of an id if held, without making it or counting a use (tests, diagnostics). */
export function heldSession(id: string): Session | undefined {
  return sessions().peek(id);
}

/** Every held Session, least recent first, without counting a use (shutdown, tests). */
export function heldSessions(): Session[] {
  return [...sessions().values()];
}

/** Weighs the Session again after it grew (a request, a new phrase) and evicts what no longer fits. */
export function reweighSession(id: string): void {
  sessions().reweigh(id);
}

/** Every held Session's prompt-cache memory, least recent first (tests, diagnostics). */
export function allCacheSessions(): CacheSession[] {
  return [...sessions().values()].map((s) => s.cache);
}

/** Forgets every Session's prompt-cache memory (what a restarted process holds of it; tests). */
export function clearCacheSessions(): void {
  for (const s of sessions().values()) s.cache = new CacheSession();
}

/** Sizes the Session registry by the configuration (applyCacheBudget; tests). */
export function setSessionBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  sessions().setBudget(cacheBudgetBytes(config, "sessions"));
}

// the cacheMemoryMiB applied last: made again with the stores (a test's new process forgets them)
declare module "../../infra/file-stores.js" {
  interface FileStores { appliedCacheMiB?: number }
}

/**
 * Sizes the process caches that live apart from an engine (the worker's loaded archives, the
 * append tails, the knowledge indexes and followers, the artifact refs, the Sessions) by the configuration:
 * O(1) unless it changed.
 */
export function applyCacheBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  const stores = fileStores();
  if (stores.appliedCacheMiB === config.cacheMemoryMiB) return;
  stores.appliedCacheMiB = config.cacheMemoryMiB;
  // the tails are followed where the appends run: the worker (and this thread when none can run)
  archiveWorker().setBudget(cacheBudgetBytes(config, "archives"), cacheBudgetBytes(config, "archiveTails"), cacheBudgetBytes(config, "knowledgeIndexes"));
  knowledgeFollowers().setBudget(cacheBudgetBytes(config, "knowledgeFollowers"));
  refsCache().setBudget(cacheBudgetBytes(config, "artifactRefs"));
  setSessionBudget(config);
}
