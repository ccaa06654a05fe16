/**
 * What the restore block takes from the turn log (issue 25): the agent's own outcome of a request
 * it lists, and what the agent did with a goal that is only a reference (URL, slash command,
 * @path). Requests in `work.requests` are shorter gists of the same text as `work.turns`.
 */
import type { WorkLedger } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { ELLIPSIS, quoteUntrusted } from "./quote.js";

/** Earlier requests (newest first) the restore block shows with the agent's outcome of that turn. */
export const OUTCOME_REQUESTS = 2;
const CAP_OUTCOME = 70;

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

/** ` → agent: "<outcome>"` for a listed request, "" without one. */
export function requestOutcome(work: WorkLedger | null | undefined, request: string): string {
  const o = outcomeOf(work ?? null, request);
  return o ? ` → agent: ${quoteUntrusted(o, CAP_OUTCOME)}` : "";
}

/** ` → agent: "<what the agent did>"` for a goal that is only a reference, "" otherwise. */
export function goalOutcome(work: WorkLedger | null | undefined, goal: string): string {
  const o = referenceGoalOutcome(work ?? null, goal);
  return o ? ` → agent: ${quoteUntrusted(o, CAP_OUTCOME)}` : "";
}
