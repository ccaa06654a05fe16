/**
 * "checkpoint" compaction mode (issue 25), host-neutral: the compaction checkpoint is written,
 * the compacted span archived, and the checkpoint rendered as the compaction summary: no model
 * call. The pi shells return the result from `session_before_compact` (pi keeps its own cut
 * point, `firstKeptEntryId`, so its `keepRecentTokens` of recent messages stay verbatim).
 */
import type { SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../context-checkpoint-schema.js";
import { markCompactionSummarized } from "../checkpoint/compaction-outcome.js";
import { renderCompactionSummary } from "../inject/compaction-summary.js";
import { archiveCompactedSpan } from "./archive-hooks.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";

/** What pi's `session_before_compact` accepts as `{ compaction }` (its CompactionResult). */
export interface CheckpointCompaction {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details: CheckpointCompactionDetails;
}

export interface CheckpointCompactionDetails {
  /** pi's own detail fields, for its UI and for hosts that read them */
  readFiles: string[];
  modifiedFiles: string[];
  contextManager: { checkpointId: string; summaryTokens: number; foldedTurns: number; compactionMs: number };
}

/** Marks a compaction entry as ours: no restore block follows it (the summary is the restore). */
export function isCheckpointCompactionDetails(details: unknown): details is CheckpointCompactionDetails {
  const cm = (details as { contextManager?: { checkpointId?: unknown } } | null | undefined)?.contextManager;
  return typeof cm?.checkpointId === "string";
}

/** Renders an already written compaction checkpoint as pi's compaction result. */
export function compactionFromCheckpoint(
  engine: ContextManagerEngine,
  checkpoint: Checkpoint,
  event: SessionBeforeCompactEvent,
  startedAt: number,
): CheckpointCompaction {
  const p = event.preparation;
  markCompactionSummarized(engine.runtime.stateDir, engine.sessionKey, engine.identity.sessionId);
  const rendered = renderCompactionSummary(checkpoint, {
    maxTokens: engine.runtime.config.compactionSummaryMaxTokens,
    previousSummary: p.previousSummary ?? null,
  });
  return {
    summary: rendered.text,
    firstKeptEntryId: p.firstKeptEntryId,
    tokensBefore: p.tokensBefore,
    details: {
      readFiles: [...checkpoint.resources.files_read],
      modifiedFiles: [...checkpoint.resources.files_modified],
      contextManager: {
        checkpointId: checkpoint.meta.checkpoint_id,
        summaryTokens: rendered.tokens,
        foldedTurns: rendered.foldedTurns,
        compactionMs: Math.round((performance.now() - startedAt) * 100) / 100,
      },
    },
  };
}

/**
 * Writes the compaction checkpoint, archives the span and returns the compaction; null when the
 * checkpoint could not be written (the host's own summary then runs: the spec's safety net).
 */
export async function checkpointCompaction(
  engine: ContextManagerEngine,
  event: SessionBeforeCompactEvent,
  cwd: string,
): Promise<CheckpointCompaction | null> {
  const startedAt = performance.now();
  const checkpoint = await engine.onBeforeCompact(event, cwd);
  // the compacted span goes to the archive after the checkpoint is on disk (docs/archive.md)
  await archiveCompactedSpan(engine, event);
  if (!checkpoint) return null;
  const compaction = compactionFromCheckpoint(engine, checkpoint, event, startedAt);
  // an empty render (a cap below the frame) would erase the history: let the host summarize
  return compaction.summary ? compaction : null;
}
