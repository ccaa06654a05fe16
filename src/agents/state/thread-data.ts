/**
 * thread.json's data: the running conversation state and its parser, and the capture cursor: which
 * messages of pi's cloned, sometimes compacted array were processed, so a `context` event costs O(new).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ToolFailure } from "../checkpoint/schema.js";
import { isInjectedMessage } from "../messages/read.js";
import { asText } from "../text/gist.js";
import { type Fields, asFields, asNumber, asString, asStringArray, asStringOrNull } from "./state-files.js";
import { isTrue, oneOf, orNull, record, records } from "./state-files.js";

/** Recent user/agent entries kept for "always include the last 2 exchange pairs" (spec §11.2). */
export const RECENT_ENTRIES = 4;

export const TOOL_FAILURE_DATA = { tool: asString, target: asString, error: asString, when: asString };
const EXCHANGE_DATA = { seq: asNumber, role: oneOf(["user", "agent"], "expected user or agent"), gist: asString };
const exchanges = records(EXCHANGE_DATA);
const TOOL_CALL_DATA = { name: asString, params_summary: asString };
/** What the last conversational message says about the working status (capture-rules.ts statusOf). */
const LAST_DATA = {
  role: oneOf(["user", "assistant", "toolResult"], "unknown role"),
  stopReason: asStringOrNull,
  hasToolCalls: isTrue,
  endsWithQuestion: isTrue,
  // last non-blank line of the last assistant text (for "wait for reply to ..."), gisted
  tail: (v: unknown) => (typeof v === "string" ? v : ""),
};

const CURSOR_DATA = {
  // index of the last seen (non-injected) message in the last array, -1 before any
  lastIndex: asNumber,
  lastId: asStringOrNull,
  lastTs: orNull(asNumber),
  // identities of the seen messages that share lastTs (same-millisecond siblings)
  idsAtLastTs: asStringArray,
  processed: asNumber,
};
type Cursor = Fields<typeof CURSOR_DATA>;

export const THREAD_DATA = {
  first_user: asStringOrNull,
  first_exchange: (v: unknown, f: string) => (v ? asFields(v, f, EXCHANGE_DATA) : null),
  last_user: asStringOrNull,
  pivots: exchanges,
  recent: exchanges,
  seq: asNumber,
  prev_assistant: orNull(record({ long: isTrue, proposal: asString })),
  last: orNull(record(LAST_DATA)),
  interrupted: isTrue,
  // inside a heartbeat turn (host-provenance.ts): its replies and steps are not the user's work
  host_turn: isTrue,
  last_tool_call: orNull(record(TOOL_CALL_DATA)),
  pending_calls: records({ id: asString, ...TOOL_CALL_DATA }),
  cursor: record(CURSOR_DATA),
  // tokens captured since the latest checkpoint (the auto-80pct dedup); absent in older files
  captured_tokens: (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0),
};

export type Exchange = Fields<typeof EXCHANGE_DATA>;
export type LastMessageInfo = Fields<typeof LAST_DATA>;
/** thread.json's data but the errors (kept in their own capped map). */
export type Thread = Fields<typeof THREAD_DATA>;
export type ThreadData = Thread & { errors: ToolFailure[] };

/** Nothing captured yet: what THREAD_DATA reads from a data object without those fields. */
export function emptyThread(): Thread {
  return asFields({ pivots: [], recent: [], seq: 0, pending_calls: [], cursor: emptyCursor() }, "", THREAD_DATA);
}

/** How far back in time a message may be stamped and still be taken as new (see resumeIndex). */
const CURSOR_CLOCK_SKEW_MS = 60_000;

export function emptyCursor(): Cursor {
  return { lastIndex: -1, lastId: null, lastTs: null, idsAtLastTs: [], processed: 0 };
}

export function timestampOf(m: AgentMessage): number {
  if (!m || typeof m !== "object") return 0;
  const t = (m as { timestamp?: unknown }).timestamp;
  return typeof t === "number" && Number.isFinite(t) ? t : 0;
}

/** Cheap identity of a message that survives pi's structured clone and a process restart. */
export function messageIdentity(m: AgentMessage): string {
  if (!m || typeof m !== "object") return `?|${typeof m}`;
  const ts = timestampOf(m);
  const o = m as unknown as Record<string, unknown>;
  const n = Array.isArray(o.content) ? o.content.length : 0;
  if (m.role === "toolResult") return `r|${ts}|${asText(o.toolCallId)}`;
  if (m.role === "assistant") return `a|${ts}|${asText(o.responseId)}|${n}|${asText(o.stopReason)}`;
  if (m.role === "user") return `u|${ts}|${typeof o.content === "string" ? o.content.length : n}`;
  return m.role === "custom" ? `c|${ts}|${asText(o.customType)}` : `${asText(m.role)}|${ts}`;
}

/** The first message not seen yet; without a cursor (state lost), the first after `coveredUntil` (checkpoint time). */
export function resumeIndex(c: Cursor, messages: readonly AgentMessage[], coveredUntil: number | null = null, end = messages.length): number {
  if (c.lastId === null || c.lastTs === null) return coveredUntil === null ? 0 : firstIndexAfter(messages, coveredUntil, end);
  // fast path: the array only grew
  const at = c.lastIndex < end ? messages[c.lastIndex] : undefined;
  if (at && messageIdentity(at) === c.lastId) return c.lastIndex + 1;
  // scan back from the end until the last seen message, or one clearly older than it
  const siblings = new Set(c.idsAtLastTs);
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (isInjectedMessage(m)) continue;
    const id = messageIdentity(m);
    if (id === c.lastId) return i + 1;
    const ts = timestampOf(m);
    // a message clearly older than the last seen one ends the scan (it may be compacted away); the
    // skew keeps a reply stamped a little before the result it follows from being taken for old
    if (ts < c.lastTs - CURSOR_CLOCK_SKEW_MS || (ts === c.lastTs && siblings.has(id))) return i + 1;
  }
  return 0;
}

/** The cursor after `messages` (its first `end`) were processed, or null when it does not move. */
export function advanceCursor(c: Cursor, messages: readonly AgentMessage[], processedNow = 0, end = messages.length): Cursor | null {
  let lastIndex = end - 1;
  while (lastIndex >= 0 && isInjectedMessage(messages[lastIndex]!)) lastIndex--;
  if (lastIndex < 0) return null;
  const last = messages[lastIndex]!;
  const lastId = messageIdentity(last);
  if (lastIndex === c.lastIndex && lastId === c.lastId && processedNow === 0) return null;
  const lastTs = timestampOf(last);
  const ids: string[] = [];
  for (let i = lastIndex; i >= 0; i--) {
    const m = messages[i]!;
    if (isInjectedMessage(m)) continue;
    if (timestampOf(m) !== lastTs) break;
    ids.push(messageIdentity(m));
  }
  return { lastIndex, lastId, lastTs, idsAtLastTs: ids, processed: c.processed + processedNow };
}

/** Index of the first message stamped after `since` (minus the skew), scanning back: O(messages after it). */
export function firstIndexAfter(messages: readonly AgentMessage[], since: number, end = messages.length): number {
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (isInjectedMessage(m)) continue;
    if (timestampOf(m) < since - CURSOR_CLOCK_SKEW_MS) return i + 1;
  }
  return 0;
}
