/**
 * Prompt caches billed per block: every prefix entry lives `ttlMs` after its last use.
 * - Anthropic's documented prompt caching (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
 *   entries only at `cache_control` blocks; a request reads the longest found within ~20 blocks of each
 *   breakpoint, writes the rest up to its last one.
 * - Caches that keep every prefix a request sent, as OpenAI automatic prompt caching
 *   (https://developers.openai.com/api/docs/guides/prompt-caching): prompts of 1,024 tokens or more, hits
 *   in 128-token steps (1,024, 1,152, ...), writes free. Matching is per block here: a block that differs
 *   is not partly reused (OpenAI matches tokens).
 */
import { ANTHROPIC_LOOKBACK_BLOCKS, FIVE_MINUTES_MS } from "../cache/cache-rules.js";

/** Our own content, recognised by whoever builds the request (replay: markers; engine: custom types). */
export const BLOCK_TAGS = ["gauge", "aged", "trim", "recall", "restore", "compaction"] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

export interface CostBlock {
  tokens: number;
  /** content hash: equal hashes = byte-identical block for the provider */
  hash: string;
  tag?: BlockTag;
}

/**
 * What the billing model sees of one request, no host types: its blocks as the provider serializes
 * them (tools, system, every message's content blocks) with tokens and a content hash, the host's
 * `cache_control` breakpoints, when it was sent and its output. Tags name our blocks, to blame breaks.
 */
export interface CostRequest {
  blocks: CostBlock[];
  /** block indexes carrying a cache breakpoint, as the host placed them (ascending) */
  breakpoints: number[];
  /** epoch ms when it was sent (the transcript's own clock in a replay) */
  at: number;
  outputTokens: number;
}

/** How one request was billed: input tokens split by rate. */
export interface RequestBill {
  read: number;
  write: number;
  uncached: number;
  output: number;
  /** tokens the previous request left cached (up to its last cached block) */
  previousCached: number;
  /** tokens of the prefix this request shares with the previous one */
  sharedPrefix: number;
  /** the previous request's entries had expired when this one was sent */
  expired: boolean;
  /** first block where this request differs from the previous one */
  divergedAt: number;
}

/** cumulative[i] = tokens of blocks[0..i] inclusive */
export function cumulativeTokens(blocks: readonly CostBlock[]): number[] {
  let n = 0;
  return blocks.map((b) => (n += b.tokens));
}

/** prefix[i] = a key for blocks[0..i] inclusive (the cache key of a breakpoint there) */
export function prefixKeys(blocks: readonly CostBlock[]): string[] {
  let key = "";
  return blocks.map((b) => (key = `${key.length > 64 ? shortHash(key) : key}|${b.hash}`));
}

/** FNV-1a over the string, two rounds for 64 bits of spread: keys stay short however long the prompt. */
function shortHash(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
}

/** index of the first block where a and b differ (min length when one is a prefix of the other) */
export function firstDifference(a: readonly CostBlock[], b: readonly CostBlock[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i]!.hash !== b[i]!.hash) return i;
  return n;
}

/** Anthropic's smallest cacheable prompt for Sonnet 4.5 ("Cache limitations"): shorter prefixes are not cached. */
export const ANTHROPIC_MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI: caching starts at 1,024 prompt tokens and hits grow in 128-token steps (prompt-caching guide). */
const OPENAI_MIN_CACHED_TOKENS = 1024;
const OPENAI_CACHE_STEP_TOKENS = 128;

type Priced = Pick<RequestBill, "read" | "write" | "uncached"> & { cachedEnd: number };

/** The previous request, against which a request's reuse is judged (what it left cached, what both share). */
export class PreviousRequest {
  previousBlocks: readonly CostBlock[] = [];
  private cachedEnd = 0;
  private at = -Infinity;

  compare(req: CostRequest, cum: readonly number[], ttlMs: number) {
    const divergedAt = firstDifference(this.previousBlocks, req.blocks);
    return {
      previousCached: this.cachedEnd,
      sharedPrefix: divergedAt > 0 ? cum[divergedAt - 1]! : 0,
      expired: this.previousBlocks.length > 0 && req.at - this.at > ttlMs,
      divergedAt,
    };
  }

  remember(req: CostRequest, cachedEnd: number): void {
    this.previousBlocks = req.blocks;
    this.cachedEnd = cachedEnd;
    this.at = req.at;
  }
}

export abstract class BlockCache {
  /** prefix key -> expiry (epoch ms) */
  protected readonly entries = new Map<string, number>();
  readonly previous = new PreviousRequest();
  constructor(protected readonly ttlMs: number = FIVE_MINUTES_MS) {}

  /** the prompt's tokens by rate, and where the entry it leaves the next request ends */
  protected abstract price(req: CostRequest, cum: readonly number[], keys: readonly string[]): Priced;

  bill(req: CostRequest): RequestBill {
    const cum = cumulativeTokens(req.blocks);
    const { cachedEnd, ...priced } = this.price(req, cum, prefixKeys(req.blocks));
    const compared = this.previous.compare(req, cum, this.ttlMs);
    this.previous.remember(req, cachedEnd);
    return { ...priced, output: req.outputTokens, ...compared };
  }

  protected live(key: string, at: number): boolean {
    return (this.entries.get(key) ?? -Infinity) >= at;
  }
}

export class AnthropicBreakpointCache extends BlockCache {
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

export abstract class PrefixCache extends BlockCache {
  /** tokens billed as cache reads when `shared` tokens of the prompt (of `total`) were found */
  protected abstract readable(shared: number, total: number): number;
  /** does the provider charge for writes (else new input is plain input) */
  protected abstract readonly chargesWrites: boolean;

  protected price(req: CostRequest, cum: readonly number[], keys: readonly string[]): Priced {
    const total = cum.at(-1) ?? 0;
    let j = -1;
    while (j + 1 < keys.length && this.live(keys[j + 1]!, req.at)) j++;
    const read = this.readable(j >= 0 ? cum[j]! : 0, total);
    for (const k of keys) this.entries.set(k, req.at + this.ttlMs);
    const fresh = total - read;
    const cachedEnd = this.readable(total, total);
    return { read, write: this.chargesWrites ? fresh : 0, uncached: this.chargesWrites ? 0 : fresh, cachedEnd };
  }
}

/** OpenAI's cached prefixes stay 5 to 10 minutes of inactivity (up to an hour off-peak): the short end is billed. */
export class OpenAIPrefixCache extends PrefixCache {
  protected readonly chargesWrites = false;
  protected readable(shared: number, total: number): number {
    if (total < OPENAI_MIN_CACHED_TOKENS || shared < OPENAI_MIN_CACHED_TOKENS) return 0;
    return OPENAI_MIN_CACHED_TOKENS + Math.floor((shared - OPENAI_MIN_CACHED_TOKENS) / OPENAI_CACHE_STEP_TOKENS) * OPENAI_CACHE_STEP_TOKENS;
  }
}

