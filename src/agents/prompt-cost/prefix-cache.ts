/**
 * Caches that keep every prefix a request sent, at every block boundary, for `ttlMs` after its
 * last use; a request reads the longest one it shares. Two providers' rules on top of it:
 * - Anthropic, any shared prefix: an upper bound on what breakpoints could save (as if every
 *   block carried one and the lookback were unlimited); new input is written at 1.25×.
 * - OpenAI automatic prompt caching (https://developers.openai.com/api/docs/guides/prompt-caching):
 *   prompts of 1,024 tokens or more, hits in 128-token steps (1,024, 1,152, ...), writes free.
 *   Matching is per block here: a block that differs is not partly reused (OpenAI matches tokens).
 */
import { type CostRequest, cumulativeTokens, prefixKeys, type RequestBill } from "./request.js";
import { PreviousRequest } from "./previous-request.js";
import { ANTHROPIC_MIN_CACHEABLE_TOKENS, ANTHROPIC_TTL_5M_MS, OPENAI_CACHE_STEP_TOKENS, OPENAI_MIN_CACHED_TOKENS, OPENAI_TTL_MS } from "./prices.js";

abstract class PrefixCache {
  private readonly entries = new Map<string, number>();
  readonly previous = new PreviousRequest();
  constructor(protected readonly ttlMs: number) {}

  /** tokens billed as cache reads when `shared` tokens of the prompt (of `total`) were found */
  protected abstract readable(shared: number, total: number): number;
  /** does the provider charge for writes (else new input is plain input) */
  protected abstract readonly chargesWrites: boolean;

  bill(req: CostRequest): RequestBill {
    const cum = cumulativeTokens(req.blocks);
    const keys = prefixKeys(req.blocks);
    const total = cum.at(-1) ?? 0;
    let j = -1;
    while (j + 1 < keys.length && (this.entries.get(keys[j + 1]!) ?? -Infinity) >= req.at) j++;
    const read = this.readable(j >= 0 ? cum[j]! : 0, total);
    for (const k of keys) this.entries.set(k, req.at + this.ttlMs);
    const compared = this.previous.compare(req, cum, this.ttlMs);
    this.previous.remember(req, this.readable(total, total));
    const fresh = total - read;
    return { read, write: this.chargesWrites ? fresh : 0, uncached: this.chargesWrites ? 0 : fresh, output: req.outputTokens, ...compared };
  }
}

export class AnthropicAnyPrefixCache extends PrefixCache {
  protected readonly chargesWrites = true;
  constructor(ttlMs = ANTHROPIC_TTL_5M_MS, private readonly minTokens = ANTHROPIC_MIN_CACHEABLE_TOKENS) {
    super(ttlMs);
  }
  protected readable(shared: number): number {
    return shared >= this.minTokens ? shared : 0;
  }
}

export class OpenAIPrefixCache extends PrefixCache {
  protected readonly chargesWrites = false;
  constructor(ttlMs = OPENAI_TTL_MS) {
    super(ttlMs);
  }
  protected readable(shared: number, total: number): number {
    if (total < OPENAI_MIN_CACHED_TOKENS || shared < OPENAI_MIN_CACHED_TOKENS) return 0;
    return OPENAI_MIN_CACHED_TOKENS + Math.floor((shared - OPENAI_MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP_TOKENS) * OPENAI_CACHE_STEP_TOKENS;
  }
}

/** No cache: every input token at the base rate. */
export class NoCache {
  readonly previous = new PreviousRequest();
  bill(req: CostRequest): RequestBill {
    const total = req.blocks.reduce((n, b) => n + b.tokens, 0);
    return { read: 0, write: 0, uncached: total, output: req.outputTokens, previousCached: 0, sharedPrefix: 0, expired: false, divergedAt: 0 };
  }
}
