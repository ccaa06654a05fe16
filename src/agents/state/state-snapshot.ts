/** Captured state as the checkpoint builder reads it; status and next_action derived, never stored. */
import type { KeyExchange, WorkingStatus } from "../checkpoint/schema.js";
import { statusOf } from "./message-rules.js";
import type { CapturedState } from "./captured-state.js";
import { keepNewest } from "./lru.js";
import { gist } from "../text/gist.js";
import type { Exchange } from "./thread-data.js";

/**
 * Everything the checkpoint builder needs, redacted and gisted. keyExchanges, errors, decisions,
 * resources, closedItems and learnings hold what came since the last checkpoint (oldest first);
 * the rest is the current situation, kept across it.
 */
export type ContextStateSnapshot = ReturnType<typeof snapshotOf>;

export function snapshotOf(s: CapturedState, sessionKey: string, sessionId: string | null) {
  const t = s.thread;
  const status = statusOf(t.last);
  return {
    sessionKey,
    sessionId,
    firstUser: t.first_user,
    lastUser: t.last_user,
    // spec §11.1: working.topic
    topic: t.last_user ?? "",
    keyExchanges: keyExchanges(s),
    errors: s.errors.values(),
    decisions: s.decisions.values(),
    resources: s.resources.snapshot(),
    openItems: s.items.openTexts(),
    // to remove from a carried-forward checkpoint
    closedItems: s.items.closedTexts(),
    learnings: s.learnings.values(),
    status,
    nextAction: nextActionOf(s, status),
    // the last assistant reply was aborted / errored
    interrupted: t.interrupted,
    lastToolCall: t.last_tool_call,
    // false until a conversational message was captured (nothing to say about status)
    hasActivity: t.last !== null,
    // messages processed by the cursor so far (diagnostics)
    messagesSeen: t.cursor.processed,
    work: s.work.snapshot(),
  };
}

/** The request as quoted inside next_action (the full gist is on the Working on line). */
const REQUEST_IN_ACTION = 60;

/**
 * working.next_action (issue 10): fixed templates over the latest request and whether it was
 * answered. Never a failure or an open item: they have their own sections.
 */
function nextActionOf(s: CapturedState, status: WorkingStatus): string {
  const t = s.thread;
  const req = gist(t.last_user ?? "", REQUEST_IN_ACTION);
  if (!req) return "Wait for the user's first request";
  if (t.last?.role === "user") return `Respond to: ${req}`;
  if (t.interrupted) return `Resume the interrupted turn: ${req} (check the last step's effect before repeating it)`;
  if (status === "in_progress") {
    const call = t.last_tool_call;
    return `Continue: ${req}${call ? ` (last step: ${call.name} ${gist(call.params_summary, 80)})` : ""}`;
  }
  // the last line of the agent's last text: the question it asked
  if (status === "waiting_for_user") return `Wait for the user's answer to: ${t.last?.tail ?? ""}`.trim();
  return s.work.answered
    ? "The latest request was answered (see the agent's last report); wait for the user's next message"
    : "Wait for the user's next message";
}

/** spec §11.2: first user message, pivots, last 2 pairs; in order; first + newest within the cap. */
function keyExchanges(s: CapturedState): KeyExchange[] {
  const t = s.thread;
  const bySeq = new Map<number, Exchange>();
  for (const e of t.pivots) bySeq.set(e.seq, e);
  for (const e of t.recent) bySeq.set(e.seq, e);
  const first = t.first_exchange;
  if (first) bySeq.delete(first.seq);
  const rest = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const room = Math.max(0, s.caps.maxExchanges - (first ? 1 : 0));
  const kept = keepNewest(rest, room);
  const out = first ? [first, ...kept] : kept;
  return out.map((e) => ({ role: e.role, gist: e.gist }));
}
