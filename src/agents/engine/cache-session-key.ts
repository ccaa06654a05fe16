/** The prompt-cache policy's memory of a session (per state dir and key, for the process), and what it says of the last request. */
import { type CacheSession, cacheSessionOf } from "../cache/cache-session.js";
import type { ReuseRules } from "../prompt-cost/reuse.js";

export function cacheSessionAt(stateDir: string, sessionKey: string): CacheSession {
  return cacheSessionOf(`${stateDir}\u0000${sessionKey}`);
}

/**
 * Whose rules the session's latest request was prepared under, for the cache-reuse estimate
 * (`/context`, the checkpoint's breakdown): null under `none` (no cache, no estimate) and before any request.
 */
export function reuseRulesOf(session: CacheSession): ReuseRules | null {
  const family = session.last.family;
  return family === "anthropic" || family === "openai" ? family : null;
}
