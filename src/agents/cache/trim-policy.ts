/**
 * When smart trim's batch is taken under a prompt cache (docs/design.md#smart-trim-under-a-prompt-cache-and-the-cold-moment-trim).
 * A trim drops messages far back in the prompt, so the request that carries it writes the
 * prompt again from there instead of reading it; the requests after it read less.
 *   - At a cold moment (the cache's entries expired on the session's own clock, or the prompt
 *     was just rewritten) the request writes its whole prompt anyway: a trim then costs nothing
 *     and makes the write smaller. So a cold request trims as soon as its context is past the
 *     middle of a trim cycle (`coldTrimAbove`), not only past the limit: the cut the next warm
 *     trim (or the host's compaction) would make soon is made where it is free.
 *   - Otherwise a batch is taken only when the reads it saves over the expected remaining
 *     requests exceed what it rewrites (swap-price.ts, the aged swap's arithmetic); a batch held
 *     is offered again, larger, on the next request, and past the host's threshold the host
 *     compacts as it would alone.
 * Without a cache (`none`) neither runs: smart trim trims at its limit as before.
 */
import type { CacheRules } from "./cache-rules.js";
import type { CacheSession } from "./cache-session.js";
import type { ColdReason } from "./swap-policy.js";
import { DEFAULT_GROWTH } from "./swap-policy.js";
import { expectedRemaining, swapPays } from "./swap-price.js";

/**
 * The reading above which a cold request trims: the middle of a trim cycle, between the low
 * mark a trim goes down to and the limit. A cycle holds that much on average; a cold request
 * above it cuts to the low mark for free, where waiting for the limit would cut the same
 * messages a little later at the price of a rewrite.
 */
export function coldTrimAbove(safeLimit: number, headroom: number): number {
  const low = Math.floor(safeLimit * (1 - headroom));
  return Math.floor((low + safeLimit) / 2);
}

/** Whether the cache is cold for a reason the provider really has nothing cached (a first request in this process may be warm). */
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

/**
 * A warm batch pays when its savings over the expected remaining requests exceed its rewrite.
 * The rewrite is priced as the whole prompt (a trim's first message lies far before the
 * provider's lookback); the savings last until the host compacts, counted from the context the
 * trim leaves.
 */
export function trimPays(p: TrimPrice): boolean {
  const growth = p.session.growth > 0 ? p.session.growth : DEFAULT_GROWTH;
  const left = Math.max(0, p.tokens - p.saved);
  return swapPays({
    rewritten: p.tokens,
    saved: p.saved,
    remaining: expectedRemaining(p.session.requests, left, p.compactAt, growth),
    writePrice: p.rules.writePrice,
    readPrice: p.rules.readPrice,
  });
}
