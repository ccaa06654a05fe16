/** The `context_search` tool's parameters and their bounds; no pi import (the CLI loads it without pi). */
export interface SearchParams {
  query: string;
  limit?: number;
  maxChars?: number;
  /** whole fragments instead of snippets around the match */
  full?: boolean;
}

/** `query.maxChars`: a 1 MB query held the archive worker ~0.8 s; 2,000 chars is past any query an agent writes. */
export const SEARCH_LIMITS = { limit: { default: 5, max: 20 }, maxChars: { default: 4000, min: 200, max: 20_000 }, query: { maxChars: 2_000 } } as const;

export const clampInt = (v: unknown, def: number, min: number, max: number): number =>
  typeof v === "number" && Number.isFinite(v) ? Math.max(min, Math.min(max, Math.floor(v))) : def;
