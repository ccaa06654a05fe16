/**
 * Anthropic's documented prompt caching (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
 * entries only at `cache_control` blocks; a request reads the longest found within ~20 blocks of each
 * breakpoint, writes the rest up to its last one; entries live a TTL from their last use.
 */
import type { CostRequest } from "./request.js";
import { ANTHROPIC_LOOKBACK_BLOCKS, FIVE_MINUTES_MS } from "../cache/cache-rules.js";
import { ANTHROPIC_MIN_CACHEABLE_TOKENS, BlockCache } from "./prefix-cache.js";

export class AnthropicBreakpointCache extends BlockCache {
  constructor(opts: { ttlMs?: number } = {}) {
    super(opts.ttlMs ?? FIVE_MINUTES_MS);
  }

  protected price(req: CostRequest, cum: readonly number[], keys: readonly string[]) {
    const total = cum.at(-1) ?? 0;
    // longest entry any breakpoint finds within its lookback
    let hit = -1;
    for (const b of req.breakpoints) {
      for (let j = b; j >= 0 && j >= b - ANTHROPIC_LOOKBACK_BLOCKS && j > hit; j--) {
        if (this.live(keys[j]!, req.at)) {
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
      if (cum[b]! < ANTHROPIC_MIN_CACHEABLE_TOKENS) continue;
      // an entry at a breakpoint is created (or refreshed) by this request
      this.entries.set(keys[b]!, req.at + this.ttlMs);
      written = Math.max(written, cum[b]!);
    }
    const cachedEnd = last >= 0 && cum[last]! >= ANTHROPIC_MIN_CACHEABLE_TOKENS ? cum[last]! : read;
    return { read, write: Math.max(0, written - read), uncached: total - Math.max(read, written), cachedEnd };
  }
}
