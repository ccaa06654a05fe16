/**
 * `status --breakdown`: what filled the window at the latest checkpoint that recorded it (its
 * `meta.breakdown`, issue 27), as the table and bar pi's `/context` shows, or as JSON. A
 * checkpoint written before its engine saw a request (a manual `/compact`, a session end)
 * records none: then the newest earlier checkpoint of the session that has one is shown, named.
 */
import { type Checkpoint } from "../agents/checkpoint/schema.js";
import { checkpointSessionDir } from "../infra/session-dir.js";
import { listCheckpointFilesInDir, readCheckpointFile } from "../agents/checkpoint/files.js";
import type { ContextBreakdown } from "../agents/checkpoint/schema.js";
import { breakdownBar, breakdownTable } from "../agents/breakdown/render.js";
import { RULES_LABEL } from "../agents/prompt-cost/reuse.js";
import { nodeFsOps } from "../infra/fs-ops.js";

/** The latest checkpoint when it has a breakdown, else the newest earlier one with one (null: none has). */
export async function checkpointWithBreakdown(stateDir: string, sessionKey: string, latest: Checkpoint): Promise<Checkpoint | null> {
  if (latest.meta.breakdown) return latest;
  let files: Array<{ id: string; n: number; path: string }>;
  try {
    files = await listCheckpointFilesInDir(checkpointSessionDir(stateDir, sessionKey), nodeFsOps);
  } catch {
    return null;
  }
  const latestN = files.find((f) => f.id === latest.meta.checkpoint_id)?.n ?? Number.POSITIVE_INFINITY;
  for (const f of [...files].sort((a, b) => b.n - a.n)) {
    if (f.n >= latestN) continue;
    try {
      const cp = await readCheckpointFile(f.path, sessionKey);
      if (cp.meta.breakdown) return cp;
    } catch {
      // an invalid file (verify names it): the next older one may have a breakdown
    }
  }
  return null;
}

/** The JSON shape of `status --breakdown --json` (camelCase, as the CLI's other JSON); `checkpointId` names whose it is. */
export function breakdownJson(cp: Checkpoint | null) {
  const b: ContextBreakdown | undefined = cp?.meta.breakdown;
  if (!cp || !b) return null;
  return {
    checkpointId: cp.meta.checkpoint_id,
    trigger: cp.meta.trigger,
    createdAt: cp.meta.created_at,
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
    cacheReuse: b.cache_reuse ? { percent: b.cache_reuse.percent, promptTokens: b.cache_reuse.prompt_tokens, cause: b.cache_reuse.cause, rules: b.cache_reuse.rules ?? "anthropic" } : null,
  };
}

/** The text lines, indented under the session's block; one line when no checkpoint has one. */
export function breakdownLines(latest: Checkpoint, shown: Checkpoint | null): string[] {
  const b = shown?.meta.breakdown;
  if (!shown || !b) return [`  breakdown: not recorded in ${latest.meta.checkpoint_id} nor an earlier checkpoint (older writer, or no request seen before them)`];
  const window = shown.meta.token_usage.context_window;
  const whose =
    shown.meta.checkpoint_id === latest.meta.checkpoint_id
      ? []
      : [`  breakdown of ${shown.meta.checkpoint_id} (trigger ${shown.meta.trigger}, ${shown.meta.created_at}): the latest checkpoint with one; ${latest.meta.checkpoint_id} recorded none`];
  const reuse = b.cache_reuse
    ? [`  Last request: cache reuse ~${b.cache_reuse.percent}% of ${b.cache_reuse.prompt_tokens.toLocaleString("en-US")} tokens (estimate: ${RULES_LABEL[b.cache_reuse.rules ?? "anthropic"]})${b.cache_reuse.cause ? `; broken by: ${b.cache_reuse.cause}` : ""}`]
    : [];
  return [...whose, `  ${breakdownBar(b, window)}`, ...breakdownTable(b, window).map((l) => `  ${l}`), ...reuse];
}
