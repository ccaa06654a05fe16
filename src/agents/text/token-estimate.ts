/**
 * The one token estimator of this package: ceil(chars / 4), the same heuristic pi uses
 * (`estimateTokens` in pi-coding-agent). Chars are UTF-16 code units (`length`), as in pi,
 * so the estimate never under-counts astral characters. The gauge's fallback, the restore
 * block's cap and the context breakdown all count with it.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of a count of chars (the breakdown sums chars per category, then converts once). */
export function tokensOfChars(chars: number): number {
  return Math.ceil(Math.max(0, chars) / 4);
}

/** What pi counts for an image block: 4,800 chars (1,200 tokens). */
export const IMAGE_CHARS = 4800;
