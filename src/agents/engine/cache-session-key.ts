/** The prompt-cache policy's memory of a session (per state dir and key, for the process), and what it says of the last request. */
import type { CacheSession } from "../cache/cache-session.js";
import { sessionAt } from "./cache-budget.js";
import type { ReuseRules } from "../prompt-cost/reuse.js";

export function cacheSessionAt(stateDir: string, sessionKey: string): CacheSession {
  return sessionAt(stateDir, sessionKey).cache;
}

/**
 * Whose rules the session's latest request was prepared under, for the cache-reuse estimate
 * (`/context`, the checkpoint's breakdown): null under `none` (no cache, no estimate) and before any request.
 */
export function reuseRulesOf(session: CacheSession): ReuseRules | null {
  const family = session.last.family;
  return family === "anthropic" || family === "openai" ? family : null;
}
