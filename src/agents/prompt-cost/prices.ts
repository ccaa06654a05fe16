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

/** Anthropic's smallest cacheable prompt for Sonnet 4.5 (same page, "Cache limitations"): shorter prefixes are not cached. */
export const ANTHROPIC_MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI: caching starts at 1,024 prompt tokens and hits grow in 128-token steps (prompt-caching guide). */
export const OPENAI_MIN_CACHED_TOKENS = 1024;
export const OPENAI_CACHE_STEP_TOKENS = 128;
/** Anthropic: a breakpoint finds an entry at most about 20 blocks back (prompt-caching, "cache hits at previous content block boundaries"). */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;
export const MINUTE_MS = 60_000;
/** Anthropic: 5 minutes by default, refreshed at no cost on each hit; `ttl: "1h"` for an hour. */
export const ANTHROPIC_TTL_5M_MS = 5 * MINUTE_MS;
export const ANTHROPIC_TTL_1H_MS = 60 * MINUTE_MS;
/** OpenAI: cached prefixes stay 5 to 10 minutes of inactivity (up to an hour off-peak); the short end is billed. */
export const OPENAI_TTL_MS = 5 * MINUTE_MS;
