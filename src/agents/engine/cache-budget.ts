/**
 * The process caches that outlive an engine, each with its share of `cacheMemoryMiB` (docs/configuration.md#memory):
 * a gateway's keys are sized by memory, not count; what falls out is read again in O(new messages).
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import { fileStores, globalSingleton } from "../../infra/process-services.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../config/context-manager-config.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import { knowledgeFollowers } from "../archive/knowledge-store.js";
import { refsCache } from "../artifacts/store.js";
import { Session } from "./session.js";

// sessions: each key's Session (session.ts): its slots (0.35), SmartTrim (~9 bytes per indexed
// char), aged outputs, breakdown and prompt-cache memory (0.18); knowledgeIndexes ~5 bytes per
// knowledge.jsonl byte (archive worker), knowledgeFollowers ~1.5; artifactRefs ~96 bytes a handle
export const CACHE_SHARES = {
  archives: 0.36,
  sessions: 0.53,
  archiveTails: 0.05,
  knowledgeIndexes: 0.03,
  knowledgeFollowers: 0.01,
  artifactRefs: 0.02,
} as const;

export function cacheBudgetBytes(config: Pick<ContextManagerConfig, "cacheMemoryMiB">, part: keyof typeof CACHE_SHARES): number {
  return Math.floor(config.cacheMemoryMiB * 2 ** 20 * CACHE_SHARES[part]);
}

/**
 * The Sessions, one per state dir and canonical key: over the budget the least recent are shed first
 * (Session.shed), then evicted whole (one holding `lasting` state is emptied of its caches instead).
 */
export const sessionRegistry = (): BudgetCache<string, Session> =>
  globalSingleton("openclaw.contextManager.sessions", () => new BudgetCache<string, Session>(
    "session",
    cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions"),
    (s) => s.approxBytes(),
    undefined,
    (_key, s) => s.shed(),
    (_key, s) => sessionRegistry().stats().entries <= MAX_SESSIONS_KEPT && s.holdsLasting() && (s.emptyCaches(), true),
  ));

/** Sessions kept at most when evicting: past it one holding lasting state goes too (ever new keys stay bounded). */
export const MAX_SESSIONS_KEPT = 4_096;

/** The Session of (stateDir, key), made when missing; made the most recent. */
export function sessionAt(stateDir: string, sessionKey: string): Session {
  return sessionOf(`${stateDir}\u0000${sessionKey}`);
}

/** The Session of an id `stateDir\0key` (the request log's key), made when missing. */
export function sessionOf(id: string): Session {
  const all = sessionRegistry();
  let s = all.get(id);
  if (!s) {
    const cut = id.indexOf("\u0000");
    s = new Session(cut < 0 ? "" : id.slice(0, cut), cut < 0 ? id : id.slice(cut + 1));
    all.set(id, s);
  }
  return s;
}

// the cacheMemoryMiB applied last: made again with the stores (a test's new process forgets them)
declare module "../../infra/process-services.js" {
  interface FileStores { appliedCacheMiB?: number }
}

/** Sizes the process caches that live apart from an engine by the configuration: O(1) unless it changed. */
export function applyCacheBudget(config: Pick<ContextManagerConfig, "cacheMemoryMiB">): void {
  const stores = fileStores();
  if (stores.appliedCacheMiB === config.cacheMemoryMiB) return;
  stores.appliedCacheMiB = config.cacheMemoryMiB;
  // the tails are followed where the appends run: the worker (and this thread when none can run)
  archiveWorker().setBudget(cacheBudgetBytes(config, "archives"), cacheBudgetBytes(config, "archiveTails"), cacheBudgetBytes(config, "knowledgeIndexes"));
  knowledgeFollowers().setBudget(cacheBudgetBytes(config, "knowledgeFollowers"));
  refsCache().setBudget(cacheBudgetBytes(config, "artifactRefs"));
  sessionRegistry().setBudget(cacheBudgetBytes(config, "sessions"));
}
