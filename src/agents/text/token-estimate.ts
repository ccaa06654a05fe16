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

/**
 * What a provider adds around each message (role, separators, a tool result's call id or tool
 * name): 16 chars (4 tokens) per message the context breakdown counts. chars/4 of the content
 * alone was 2.8-4.0% short of the faux model's count on the replayed transcripts' estimated
 * requests (docs/benchmarks.md#context-breakdown-issue-27): its framing is "role:" and a blank
 * line per message, a tool result's tool name too (7-32 chars); OpenAI documents 3-4 tokens per
 * message. Not in the gauge's estimate, which stays pi's (pi's compaction decides on it).
 */
export const MESSAGE_FRAMING_CHARS = 16;
