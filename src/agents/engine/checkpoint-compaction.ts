/**
 * "checkpoint" compaction mode (issue 25), host-neutral: the compaction checkpoint is written,
 * the compacted span archived, and the checkpoint rendered as the compaction summary: no model
 * call. The pi shells return the result from `session_before_compact` (pi keeps its own cut
 * point, `firstKeptEntryId`, so its `keepRecentTokens` of recent messages stay verbatim).
 */
import { type CompactionInput, compactedSpanOf } from "./compaction-input.js";
import type { Checkpoint } from "../checkpoint/schema.js";
import { markCompactionSummarized } from "./compaction-outcomes.js";
import { renderCompactionSummary } from "../inject/compaction-summary.js";
import { archiveCompactedSpan, archiveCompactedSpanAfter } from "./archive-hooks.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";

/** A compaction with pi's cut point: the checkpoint compaction returns it as pi's result. */
export type PiCompaction = CompactionInput & { preparation: { firstKeptEntryId: string } };

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
  event: PiCompaction,
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
 * The compaction, returned before its checkpoint is on disk: the summary is rendered from the
 * checkpoint built in memory (the captured state, O(messages not yet captured)); the durable
 * write, the state reset and the span's archive run after it (`durable`), the write as the
 * engine's pending write (nothing captures or snapshots the state until it is done). Lost in a
 * crash before `durable`: only the checkpoint file and the span's archive entries; the summary
 * (everything the checkpoint says) is in the host's compaction entry, and the captured state
 * files are reset only after the checkpoint is durable (docs/compaction.md, "Latency").
 * Null when no checkpoint could be built or the render is empty (the host summarizes instead).
 */
export async function checkpointCompaction(
  engine: ContextManagerEngine,
  event: PiCompaction,
  cwd: string,
): Promise<CheckpointCompaction | null> {
  const started = await startCheckpointCompaction(engine, event, cwd);
  return started?.compaction ?? null;
}

export interface StartedCheckpointCompaction {
  /** null: an empty render (a cap below the frame) would erase the history */
  compaction: CheckpointCompaction | null;
  checkpoint: Checkpoint;
  /** the checkpoint on disk (null: its write failed) and the span archived */
  durable: Promise<Checkpoint | null>;
}

export async function startCheckpointCompaction(
  engine: ContextManagerEngine,
  event: PiCompaction,
  cwd: string,
): Promise<StartedCheckpointCompaction | null> {
  const startedAt = performance.now();
  const started = await engine.startCompactionCheckpoint(event, cwd);
  if (!started) {
    // no checkpoint: the span is still archived (the host's summary runs)
    await archiveCompactedSpan(engine, event);
    return null;
  }
  // the compacted span goes to the archive after the checkpoint is on disk (docs/archive.md)
  const archived = archiveCompactedSpanAfter(engine, compactedSpanOf(event), started.durable);
  const durable = archived.then(() => started.durable);
  let compaction: CheckpointCompaction | null = null;
  try {
    const c = compactionFromCheckpoint(engine, started.checkpoint, event, startedAt);
    compaction = c.summary ? c : null;
  } catch {
    compaction = null;
  }
  return { compaction, checkpoint: started.checkpoint, durable };
}
