/**
 * What the restore block takes from the turn log (issue 25): the agent's own outcome of a request
 * it lists, and what the agent did with a goal that is only a reference (URL, slash command,
 * @path). Requests in `work.requests` are shorter gists of the same text as `work.turns`.
 */
import type { WorkLedger } from "../context-checkpoint-schema.js";
import { isBareReference } from "../state/turn-log.js";
import { ELLIPSIS } from "./quote.js";

/** The outcome of the newest turn whose request `request` (a gist, maybe cut) starts. */
export function outcomeOf(work: WorkLedger | null, request: string): string {
  const turns = Array.isArray(work?.turns) ? work.turns : [];
  const head = request.endsWith(ELLIPSIS) ? request.slice(0, -ELLIPSIS.length) : request;
  if (!head) return "";
  for (const t of turns) {
    if (t && typeof t.request === "string" && typeof t.outcome === "string" && t.request.startsWith(head)) return t.outcome;
  }
  return "";
}

/** The goal's outcome when the goal is only a reference; "" otherwise. */
export function referenceGoalOutcome(work: WorkLedger | null, goal: string): string {
  return goal && isBareReference(goal) ? outcomeOf(work, goal) : "";
}
