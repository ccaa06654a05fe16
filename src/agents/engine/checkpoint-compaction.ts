/**
 * "checkpoint" compaction mode in pi's shape: the checkpoint rendered as the compaction summary,
 * no model call, returned from `session_before_compact` (pi keeps its own cut point).
 */
import type { CompactionInput } from "./compaction-input.js";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { CompactionStart, SessionApi } from "./session-api.js";

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

/** A compaction checkpoint as pi's compaction result; null when the render is empty or fails (the host summarizes). */
export function compactionFromCheckpoint(session: SessionApi, checkpoint: Checkpoint, event: PiCompaction, startedAt: number): CheckpointCompaction | null {
  try {
    const p = event.preparation;
    const rendered = session.compactionSummary(checkpoint, p.previousSummary ?? null);
    if (!rendered.text) return null;
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
  } catch {
    return null;
  }
}

/** `compaction` null: an empty render; `durable`: the checkpoint on disk (null: write failed), span archived. */
type Started = CompactionStart & { checkpoint: Checkpoint; compaction: CheckpointCompaction | null };

/**
 * The compaction, returned before its checkpoint is on disk (docs/compaction.md, "Latency"): a crash before
 * `durable` loses the file and the span's archive, not the summary (the host's entry). Null: no checkpoint.
 */
export async function startCheckpointCompaction(session: SessionApi, event: PiCompaction, cwd: string): Promise<Started | null> {
  const startedAt = performance.now();
  const start = await session.beforeCompaction(event, { use: "summary", cwd });
  if (!start.checkpoint) return null;
  return { compaction: compactionFromCheckpoint(session, start.checkpoint, event, startedAt), checkpoint: start.checkpoint, durable: start.durable };
}
