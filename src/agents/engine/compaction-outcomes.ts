/**
 * The outcome of each session id's latest compaction hook (the key's Session, `lasting`): written
 * by the engine in the hook, read by the restore after the compaction, in the same process.
 */
import { resolve } from "node:path";
import type { CompactionOutcome } from "../checkpoint/compaction-outcome.js";
import { heldSession, sessionAt } from "./cache-budget.js";

export type { CompactionOutcome };

/** Session ids remembered per key at most (oldest forgotten first): the latest is the one read. */
const MAX_SESSION_IDS = 16;

const idOf = (stateDir: string, storedSessionKey: string): string => `${resolve(stateDir)}\u0000${storedSessionKey}`;

function heldOutcomes(stateDir: string, storedSessionKey: string): Map<string, CompactionOutcome> | undefined {
  return heldSession(idOf(stateDir, storedSessionKey))?.lasting.compactionOutcomes;
}

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
  const o = heldOutcomes(stateDir, storedSessionKey)?.get(sessionId ?? "");
  return o && o.at >= since ? o : null;
}

/** The compaction of this session used its checkpoint as the summary (issue 25): the restore is in the history already. */
export function markCompactionSummarized(stateDir: string, storedSessionKey: string, sessionId: string | null): void {
  const o = heldOutcomes(stateDir, storedSessionKey)?.get(sessionId ?? "");
  if (o) o.summarized = true;
}
