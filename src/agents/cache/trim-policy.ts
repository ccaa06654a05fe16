/**
 * When smart trim's batch is taken under a prompt cache
 * (docs/design.md#smart-trim-under-a-prompt-cache-and-the-cold-moment-trim). A cold request writes its
 * whole prompt anyway, so it trims for free once past the middle of a trim cycle (`coldTrimAbove`); a
 * warm batch goes only when it pays (swap-policy.ts's arithmetic), else it is offered again, larger,
 * next request. Without a cache neither runs: smart trim trims at its limit.
 */
import type { CacheRules } from "./cache-rules.js";
import type { CacheSession } from "./cache-session.js";
import { type ColdReason, priceSwap, swapPays } from "./swap-policy.js";

/** Between the low mark a trim goes down to and the limit: a cycle's average, cut free when cold. */
export function coldTrimAbove(safeLimit: number, headroom: number): number {
  const low = Math.floor(safeLimit * (1 - headroom));
  return Math.floor((low + safeLimit) / 2);
}

/** Whether the provider really has nothing cached (a first request in this process may be warm). */
export function coldForTrim(cold: ColdReason | null): boolean {
  return cold === "ttl" || cold === "rewritten";
}

export interface TrimPrice {
  rules: CacheRules;
  session: CacheSession;
  /** the request's tokens before the trim, and where the host compacts */
  tokens: number;
  compactAt: number;
  /** tokens the batch drops */
  saved: number;
}

/** The rewrite is the whole prompt (a trim lies far before the lookback); savings count from what is left. */
export function trimPays(p: TrimPrice): boolean {
  const left = Math.max(0, p.tokens - p.saved);
  return swapPays(priceSwap(p.rules, p.session, p.tokens, p.saved, left, p.compactAt));
}
