/**
 * What happened to the checkpoint of each session's latest compaction, so the post-compaction
 * restore sends THAT checkpoint or nothing. Without it, a compaction whose checkpoint could
 * not be written (full or read-only disk) would be answered with the previous checkpoint,
 * which does not cover the compacted span.
 *
 * Recorded by the engine inside `session_before_compact` (writeCompactionCheckpoint), read by
 * the restore seams after `compaction_end`. Process-wide: OpenClaw runs the hook and the
 * restore in one process, and pi loads this module more than once (see global-singleton.ts).
 */
import { resolve } from "node:path";
import { globalSingleton } from "../../infra/global-singleton.js";

export interface CompactionOutcome {
  /** the checkpoint written for the compaction, or null when writing it failed */
  checkpointId: string | null;
  /** Date.now() when the hook finished */
  at: number;
  /** a missing block was already logged for this run of failures (one line, not one per compaction) */
  reported: boolean;
  /** the checkpoint was rendered as the compaction summary itself (issue 25): no restore block follows */
  summarized?: boolean;
}

/** Sessions remembered at most (oldest forgotten first); one entry per live session is enough. */
const MAX_SESSIONS = 1000;

const outcomes = (): Map<string, CompactionOutcome> =>
  globalSingleton("openclaw.contextManager.compactionOutcomes", () => new Map<string, CompactionOutcome>());

const keyOf = (stateDir: string, storedSessionKey: string, sessionId: string | null): string =>
  `${resolve(stateDir)}\u0000${storedSessionKey}\u0000${sessionId ?? ""}`;

export function recordCompactionOutcome(
  stateDir: string,
  storedSessionKey: string,
  sessionId: string | null,
  checkpointId: string | null,
  at = Date.now(),
): void {
  const m = outcomes();
  const k = keyOf(stateDir, storedSessionKey, sessionId);
  const before = m.get(k);
  m.delete(k);
  // failures in a row share one log line; a written checkpoint clears it
  m.set(k, { checkpointId, at, reported: checkpointId === null && before?.checkpointId === null && before.reported });
  if (m.size > MAX_SESSIONS) m.delete(m.keys().next().value as string);
}

/** The outcome of this session's latest compaction hook, when it ran at or after `since`. */
export function compactionOutcomeSince(
  stateDir: string,
  storedSessionKey: string,
  sessionId: string | null,
  since: number,
): CompactionOutcome | null {
  const o = outcomes().get(keyOf(stateDir, storedSessionKey, sessionId));
  return o && o.at >= since ? o : null;
}

/** The compaction of this session used its checkpoint as the summary (issue 25): the restore is in the history already. */
export function markCompactionSummarized(stateDir: string, storedSessionKey: string, sessionId: string | null): void {
  const o = outcomes().get(keyOf(stateDir, storedSessionKey, sessionId));
  if (o) o.summarized = true;
}
