/**
 * working.next_action (issue 10): from the latest user request and whether the agent
 * answered it, with fixed templates (no content matching). Never from a failure or an
 * open item: those have their own sections, and a failure older than the latest request
 * is not what the user is waiting for.
 */
import type { LastToolCall, WorkingStatus } from "../checkpoint/schema.js";
import { gist } from "../text/gist.js";

export interface NextActionInput {
  status: WorkingStatus;
  /** the last conversational message was the user's */
  userSpokeLast: boolean;
  interrupted: boolean;
  /** the agent's turn-ending text came after the latest request */
  answered: boolean;
  /** gist of the latest user request ("" when none) */
  latestRequest: string;
  lastToolCall: LastToolCall | null;
  /** last line of the agent's last text (for a question it asked) */
  questionTail: string;
}

/** The request as quoted inside next_action (the full gist is on the Working on line). */
const REQUEST_IN_ACTION = 60;

export function nextActionOf(x: NextActionInput): string {
  const req = gist(x.latestRequest, REQUEST_IN_ACTION);
  if (!req) return "Wait for the user's first request";
  if (x.userSpokeLast) return `Respond to: ${req}`;
  if (x.interrupted) return `Resume the interrupted turn: ${req} (check the last step's effect before repeating it)`;
  if (x.status === "in_progress") {
    const step = x.lastToolCall ? ` (last step: ${x.lastToolCall.name} ${gist(x.lastToolCall.params_summary, 80)})` : "";
    return `Continue: ${req}${step}`;
  }
  if (x.status === "waiting_for_user") return `Wait for the user's answer to: ${x.questionTail}`.trim();
  return x.answered
    ? "The latest request was answered (see the agent's last report); wait for the user's next message"
    : "Wait for the user's next message";
}
