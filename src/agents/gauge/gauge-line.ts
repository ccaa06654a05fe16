/** The gauge line's text, without the Pi SDK (the CLI's `status` uses it and starts fast). */

export interface GaugeFigures {
  tokens: number;
  contextWindow: number;
  utilization: number;
  /** where the figures came from (not shown) */
  source?: string;
}

/** "850", "162k" (999,600 -> "1000k"), "1M", "1.5M". */
export function formatTokenCount(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1000) return String(v);
  if (v < 1_000_000) return `${Math.round(v / 1000)}k`;
  const m = Math.round(v / 100_000) / 10;
  return `${Number.isInteger(m) ? m.toFixed(0) : m.toFixed(1)}M`;
}

/** Longest composition phrase the line carries (about 15 tokens; the whole line stays near 25). */
export const GAUGE_PHRASE_MAX_CHARS = 60;

/** "[Context: 81% | 162k/200k tokens | tool results 58% (read 40%)]"; floored (+epsilon: 0.29 * 100 < 29). */
export function formatGaugeLine(r: GaugeFigures, checkpointSaved: boolean, composition = ""): string {
  const percent = Math.floor(r.utilization * 100 + 1e-9);
  const saved = checkpointSaved ? " | Checkpoint saved" : "";
  const phrase = composition && composition.length <= GAUGE_PHRASE_MAX_CHARS && !/[\]\n\r|]/.test(composition) ? ` | ${composition}` : "";
  return `[Context: ${percent}% | ${formatTokenCount(r.tokens)}/${formatTokenCount(r.contextWindow)} tokens${phrase}${saved}]`;
}

