/**
 * `status --breakdown`: what filled the window when the latest checkpoint was written (its
 * `meta.breakdown`, issue 27), as the table and bar pi's `/context` shows, or as JSON.
 */
import type { Checkpoint, ContextBreakdown } from "../agents/context-checkpoint-schema.js";
import { breakdownBar, breakdownTable } from "../agents/breakdown/render.js";

/** The JSON shape of `status --breakdown --json` (camelCase, as the CLI's other JSON). */
export function breakdownJson(b: ContextBreakdown | undefined) {
  if (!b) return null;
  return {
    totalTokens: b.total_tokens,
    estimatedTokens: b.estimated_tokens,
    source: b.source,
    messages: b.messages,
    categories: b.categories,
    toolResultsByTool: b.tool_results_by_tool,
    toolDefinitionsByTool: b.tool_definitions_by_tool,
    largest: b.largest,
    removed: { agedOffload: b.removed.aged_offload, smartTrim: b.removed.smart_trim },
    headroom: { toCheckpoint: b.headroom.to_checkpoint, toCompaction: b.headroom.to_compaction },
    cacheReuse: b.cache_reuse ? { percent: b.cache_reuse.percent, promptTokens: b.cache_reuse.prompt_tokens, cause: b.cache_reuse.cause } : null,
  };
}

/** The text lines, indented under the session's block; one line when the checkpoint has none. */
export function breakdownLines(cp: Checkpoint): string[] {
  const b = cp.meta.breakdown;
  if (!b) return [`  breakdown: not recorded in ${cp.meta.checkpoint_id} (older writer, or no request seen before it)`];
  const window = cp.meta.token_usage.context_window;
  const reuse = b.cache_reuse
    ? [`  Last request: cache reuse ~${b.cache_reuse.percent}% of ${b.cache_reuse.prompt_tokens.toLocaleString("en-US")} tokens (estimate: Anthropic breakpoint rules, pi-ai placement)${b.cache_reuse.cause ? `; broken by: ${b.cache_reuse.cause}` : ""}`]
    : [];
  return [`  ${breakdownBar(b, window)}`, ...breakdownTable(b, window).map((l) => `  ${l}`), ...reuse];
}
