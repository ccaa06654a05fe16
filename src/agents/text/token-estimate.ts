/**
 * Token estimate for text we inject: ceil(chars / 4), the same heuristic pi uses
 * (`estimateTokens` in pi-coding-agent). Chars are UTF-16 code units (`length`),
 * as in pi, so the estimate never under-counts astral characters.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
