/**
 * Anthropic's documented prompt caching (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
 * - an entry exists only for a prefix ending at a block a request marked with `cache_control`;
 * - a request reads the longest entry it finds by checking, from each of its own breakpoints,
 *   that block boundary and the ones before it, about 20 blocks back;
 * - the prefix up to its last breakpoint that it could not read is written (1.25× input for
 *   5-minute entries, 2× for 1-hour ones); what follows the last breakpoint is plain input;
 * - an entry lives 5 minutes (or 1 hour) from its last use, refreshed free on a hit;
 * - prefixes below the model's minimum cacheable length are not cached.
 */
import { type CostRequest, cumulativeTokens, prefixKeys, type RequestBill } from "./request.js";
import { ANTHROPIC_LOOKBACK_BLOCKS, ANTHROPIC_MIN_CACHEABLE_TOKENS, ANTHROPIC_TTL_5M_MS } from "./prices.js";
import { PreviousRequest } from "./previous-request.js";

export interface AnthropicOptions {
  ttlMs?: number;
  lookbackBlocks?: number;
  minCacheableTokens?: number;
}

export class AnthropicBreakpointCache {
  /** prefix key -> expiry (epoch ms) */
  private readonly entries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly lookback: number;
  private readonly minTokens: number;
  readonly previous = new PreviousRequest();

  constructor(opts: AnthropicOptions = {}) {
    this.ttlMs = opts.ttlMs ?? ANTHROPIC_TTL_5M_MS;
    this.lookback = opts.lookbackBlocks ?? ANTHROPIC_LOOKBACK_BLOCKS;
    this.minTokens = opts.minCacheableTokens ?? ANTHROPIC_MIN_CACHEABLE_TOKENS;
  }

  bill(req: CostRequest): RequestBill {
    const cum = cumulativeTokens(req.blocks);
    const keys = prefixKeys(req.blocks);
    const total = cum.at(-1) ?? 0;
    const live = (k: string) => (this.entries.get(k) ?? -Infinity) >= req.at;
    // longest entry any breakpoint finds within its lookback
    let hit = -1;
    for (const b of req.breakpoints) {
      for (let j = b; j >= 0 && j >= b - this.lookback && j > hit; j--) {
        if (live(keys[j]!)) {
          hit = j;
          break;
        }
      }
    }
    const read = hit >= 0 ? cum[hit]! : 0;
    if (hit >= 0) this.entries.set(keys[hit]!, req.at + this.ttlMs);
    const last = req.breakpoints.at(-1) ?? -1;
    let written = read;
    for (const b of req.breakpoints) {
      if (cum[b]! < this.minTokens) continue;
      // an entry at a breakpoint is created (or refreshed) by this request
      this.entries.set(keys[b]!, req.at + this.ttlMs);
      written = Math.max(written, cum[b]!);
    }
    const cachedEnd = last >= 0 && cum[last]! >= this.minTokens ? cum[last]! : read;
    const compared = this.previous.compare(req, cum, this.ttlMs);
    this.previous.remember(req, cachedEnd);
    return { read, write: Math.max(0, written - read), uncached: total - Math.max(read, written), output: req.outputTokens, ...compared };
  }
}
