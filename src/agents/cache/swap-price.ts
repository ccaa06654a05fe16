/**
 * What a change to earlier history costs and saves under a prompt cache, in units of one
 * uncached input token (docs/design.md#aging-under-a-prompt-cache). Pure arithmetic: the policy
 * (swap-policy.ts) supplies the token counts, the tests check it against worked examples.
 *
 * A swap that takes `saved` tokens out of a region of `rewritten` tokens (from the latest cache
 * entry the provider can still reuse before the change, to the end of the previous request, the
 * part the request would otherwise have read) costs this request that region written instead of
 * read, less what is no longer there:
 *     cost    = (rewritten - saved) * write - rewritten * read
 * and saves every later request the read of what it took out:
 *     savings = saved * read * remaining
 * It pays when savings > cost. What follows the previous request's end is written either way.
 */

export interface SwapCase {
  /** tokens from the reusable entry to the previous request's end (what is written again) */
  rewritten: number;
  /** tokens the swap takes off the prompt (inside the rewritten region) */
  saved: number;
  /** requests expected after this one that would read the saved tokens */
  remaining: number;
  /** price of a token written / read, against uncached input (Anthropic 5 min: 1.25 / 0.1) */
  writePrice: number;
  readPrice: number;
}

/** The extra this request pays for the swap (may be negative: a swap that shrinks the rewrite it causes). */
export function swapCost(c: SwapCase): number {
  const saved = Math.min(c.saved, c.rewritten);
  return (c.rewritten - saved) * c.writePrice - c.rewritten * c.readPrice;
}

/** What the later requests save by not reading the swapped-out tokens. */
export function swapSavings(c: SwapCase): number {
  return Math.max(0, c.saved) * c.readPrice * Math.max(0, c.remaining);
}

export function swapPays(c: SwapCase): boolean {
  return swapSavings(c) > swapCost(c);
}

/** Bounds on the requests expected after this one. */
export const MIN_REMAINING = 1;
export const MAX_REMAINING = 200;

/**
 * Requests expected after this one that a swap's savings accrue over. A session seen for n
 * requests is as likely to be anywhere in its life as anywhere else, so the chance it runs r
 * more is n / (n + r) (the "Copernican" prior: its median is n more). The savings stop at the
 * horizon H: when the host compacts (at the current growth per request; a compaction drops
 * what the swap saved) or MAX_REMAINING. The expected requests before min(end, H) under that
 * prior are the integral of n / (n + r) over r in [0, H]:
 *     n * ln(1 + H / n)
 * Early in a session that is more than n (a swap made then is read for hundreds of requests),
 * near a compaction or late in a long session less than n or H.
 */
export function expectedRemaining(requestsSoFar: number, tokens: number, compactAt: number, growthPerRequest: number): number {
  const untilCompaction = compactAt > tokens && growthPerRequest > 0 ? (compactAt - tokens) / growthPerRequest : compactAt > tokens ? MAX_REMAINING : 0;
  const horizon = Math.min(MAX_REMAINING, untilCompaction);
  const n = Math.max(1, requestsSoFar);
  return Math.min(MAX_REMAINING, Math.max(MIN_REMAINING, n * Math.log1p(horizon / n)));
}
