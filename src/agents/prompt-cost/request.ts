/**
 * What the billing model sees of one request, no host types: its blocks as the provider serializes
 * them (tools, system, every message's content blocks) with tokens and a content hash, the host's
 * `cache_control` breakpoints, when it was sent and its output. Tags name our blocks, to blame breaks.
 */

/** Our own content, recognised by whoever builds the request (replay: markers; engine: custom types). */
export const BLOCK_TAGS = ["gauge", "aged", "trim", "recall", "restore", "compaction"] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

export interface CostBlock {
  tokens: number;
  /** content hash: equal hashes = byte-identical block for the provider */
  hash: string;
  tag?: BlockTag;
}

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
