/**
 * A compaction as every host route hands it to the engine (pi's event's shape), each session id's latest
 * outcome, and the "checkpoint" compaction mode (the checkpoint rendered as the summary, no model call).
 */
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { CompactionOutcome } from "../checkpoint/compaction-outcome.js";
import { sessionAt, sessionRegistry } from "./cache-budget.js";

export interface CompactionInput {
  /** the session branch up to the compaction: its messages not captured yet are captured first */
  branchEntries: ReadonlyArray<{ type: string; message?: unknown }>;
  preparation: {
    /** the context's tokens before the compaction (the checkpoint's reading) */
    tokensBefore: number;
    /** the span the host's summarizer is given, and a split turn's prefix: archived with the checkpoint */
    messagesToSummarize?: readonly AgentMessage[];
    turnPrefixMessages?: readonly AgentMessage[];
    /** the files the host saw read, written and edited in the span (else the captured tool calls name them) */
    fileOps?: { read: Iterable<string>; written: Iterable<string>; edited: Iterable<string> };
    /** pi: the first entry its compaction keeps, and the previous compaction's summary */
    firstKeptEntryId?: string;
    previousSummary?: string;
  };
}

export interface CompactionOptions {
  /** "summary": the checkpoint is the compaction, returned before it is on disk; "checkpoint": the host summarizes */
  use: "summary" | "checkpoint";
  /** the workspace the checkpoint records */
  cwd: string;
  /** what goes to the archive (default: the span the host summarizes; null: nothing) */
  span?: readonly AgentMessage[] | null;
  /** the span is archived as a compaction's (the automatic recall warms the archive after it); default true */
  asCompaction?: boolean;
  /** "summary": the span's archive waits for this too (the host's reply); `durable` does not */
  archiveAfter?: Promise<unknown>;
}

export interface CompactionStart {
  /** the compaction checkpoint (in memory under "summary"), or null: none could be built or written */
  checkpoint: Checkpoint | null;
  /** settles when the checkpoint is on disk (null: its write failed) and the span archived */
  durable: Promise<Checkpoint | null>;
}

// --- each session id's latest compaction hook outcome (Session `lasting`), read by the restore after it

/** Session ids remembered per key at most (oldest forgotten first): the latest is the one read. */
const MAX_SESSION_IDS = 16;

export function recordCompactionOutcome(
  stateDir: string,
  storedSessionKey: string,
  sessionId: string | null,
  checkpointId: string | null,
  at = Date.now(),
): void {
  const m = sessionAt(resolve(stateDir), storedSessionKey).lasting.compactionOutcomes;
  const k = sessionId ?? "";
  const before = m.get(k);
  m.delete(k);
  // failures in a row share one log line; a written checkpoint clears it
  m.set(k, { checkpointId, at, reported: checkpointId === null && before?.checkpointId === null && before.reported });
  if (m.size > MAX_SESSION_IDS) m.delete(m.keys().next().value as string);
}

/** The outcome of this session's latest compaction hook, when it ran at or after `since`. */
export function compactionOutcomeSince(
  stateDir: string,
  storedSessionKey: string,
  sessionId: string | null,
  since: number,
): CompactionOutcome | null {
  const outcomes = sessionRegistry().peek(`${resolve(stateDir)}\u0000${storedSessionKey}`)?.lasting.compactionOutcomes;
  const o = outcomes?.get(sessionId ?? "");
  return o && o.at >= since ? o : null;
}

/** The compaction of this session used its checkpoint as the summary: the restore is in the history already. */
export function markCompactionSummarized(stateDir: string, storedSessionKey: string, sessionId: string | null): void {
  const o = compactionOutcomeSince(stateDir, storedSessionKey, sessionId, -Infinity);
  if (o) o.summarized = true;
}

// --- "checkpoint" compaction mode: returned from `session_before_compact` (pi keeps its own cut point)

/** What the checkpoint compaction uses of the engine (here: the engine imports this file). */
interface CompactingSession {
  beforeCompaction(input: CompactionInput, opts: CompactionOptions): Promise<CompactionStart>;
  compactionSummary(checkpoint: Checkpoint, previous: string | null): { text: string; tokens: number; foldedTurns: number };
}

/** A compaction with pi's cut point: the checkpoint compaction returns it as pi's result. */
export type PiCompaction = CompactionInput & { preparation: { firstKeptEntryId: string } };

/** What pi's `session_before_compact` accepts as `{ compaction }` (its CompactionResult). */
export interface CheckpointCompaction {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  /** pi's own detail fields (for its UI and for hosts that read them), then ours */
  details: {
    readFiles: string[];
    modifiedFiles: string[];
    contextManager: { checkpointId: string; summaryTokens: number; foldedTurns: number; compactionMs: number };
  };
}

/** Marks a compaction entry as ours: no restore block follows it (the summary is the restore). */
export function isCheckpointCompactionDetails(details: unknown): details is CheckpointCompaction["details"] {
  const cm = (details as { contextManager?: { checkpointId?: unknown } } | null | undefined)?.contextManager;
  return typeof cm?.checkpointId === "string";
}

/** A compaction checkpoint as pi's compaction result; null when the render is empty or fails (the host summarizes). */
export function compactionFromCheckpoint(session: CompactingSession, checkpoint: Checkpoint, event: PiCompaction, startedAt: number): CheckpointCompaction | null {
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
export async function startCheckpointCompaction(session: CompactingSession, event: PiCompaction, cwd: string): Promise<Started | null> {
  const startedAt = performance.now();
  const start = await session.beforeCompaction(event, { use: "summary", cwd });
  if (!start.checkpoint) return null;
  return { compaction: compactionFromCheckpoint(session, start.checkpoint, event, startedAt), checkpoint: start.checkpoint, durable: start.durable };
}
