/**
 * List prices, USD per million tokens (results report ratios; dollars let the rates be checked):
 * - Anthropic, Claude Sonnet 4.5 (https://platform.claude.com/docs/en/build-with-claude/prompt-caching,
 *   "Pricing"): base input $3, 5-minute cache write $3.75 (1.25×), 1-hour cache write $6 (2×),
 *   cache hits and refreshes $0.30 (0.1×), output $15.
 * - OpenAI, gpt-5 (https://developers.openai.com/api/docs/pricing): input $1.25, cached input
 *   $0.125 (the 90% discount of the GPT-5 family), output $10; cache writes cost nothing extra on
 *   models before GPT-5.6 (https://developers.openai.com/api/docs/guides/prompt-caching).
 */
export interface Prices {
  model: string;
  input: number;
  /** cache writes (OpenAI: same as input, writes are free) */
  write5m: number;
  write1h: number;
  read: number;
  output: number;
}

export const CLAUDE_SONNET_4_5: Prices = { model: "claude-sonnet-4-5", input: 3, write5m: 3.75, write1h: 6, read: 0.3, output: 15 };
export const GPT_5: Prices = { model: "gpt-5", input: 1.25, write5m: 1.25, write1h: 1.25, read: 0.125, output: 10 };
export const MINUTE_MS = 60_000;
