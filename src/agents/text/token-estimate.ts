/** The one token estimator: ceil(UTF-16 units / 4), pi's `estimateTokens` heuristic. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Tokens of a count of chars (the breakdown sums chars per category, then converts once). */
export function tokensOfChars(chars: number): number {
  return Math.ceil(Math.max(0, chars) / 4);
}

/** What pi counts for an image block: 4,800 chars (1,200 tokens). */
export const IMAGE_CHARS = 4800;

/**
 * A provider's framing per message in the breakdown (the content alone was 2.8-4.0% short,
 * docs/benchmarks.md#context-breakdown-issue-27); not in the gauge, which stays pi's estimate.
 */
export const MESSAGE_FRAMING_CHARS = 16;
