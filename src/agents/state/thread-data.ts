/** thread.json's data: the running conversation state, its empty value and its parser (StateDataError on a bad shape). */
import type { LastToolCall, ToolFailure } from "../checkpoint/schema.js";
import type { LastMessageInfo } from "./message-rules.js";
import { keepNewest } from "./lru.js";
import { type Cursor, emptyCursor } from "./message-cursor.js";
import { type Check, type Fields, asFields, asNumber, asRecords, asString, asStringArray, asStringOrNull, oneOf } from "./state-files.js";

/** Recent user/agent entries kept for "always include the last 2 exchange pairs" (spec §11.2). */
export const RECENT_ENTRIES = 4;

export const TOOL_FAILURE_DATA = { tool: asString, target: asString, error: asString, when: asString };
const EXCHANGE_DATA = { seq: asNumber, role: oneOf(["user", "agent"] as const, "expected user or agent"), gist: asString };
const TOOL_CALL_DATA = { name: asString, params_summary: asString };
const PENDING_CALL_DATA = { id: asString, ...TOOL_CALL_DATA };
export type Exchange = Fields<typeof EXCHANGE_DATA>;
type PendingCall = Fields<typeof PENDING_CALL_DATA>;

export interface ThreadData {
  first_user: string | null;
  first_exchange: Exchange | null;
  last_user: string | null;
  pivots: Exchange[];
  recent: Exchange[];
  errors: ToolFailure[];
  seq: number;
  prev_assistant: { long: boolean; proposal: string } | null;
  last: LastMessageInfo | null;
  interrupted: boolean;
  /** inside a heartbeat turn (host-provenance.ts): its replies and steps are not the user's work */
  host_turn: boolean;
  last_tool_call: LastToolCall | null;
  pending_calls: PendingCall[];
  cursor: Cursor;
  /** tokens captured since the latest checkpoint: how far the session moved on (the auto-80pct dedup) */
  captured_tokens: number;
}

export function emptyThread(): Omit<ThreadData, "errors"> {
  return {
    first_user: null,
    first_exchange: null,
    last_user: null,
    pivots: [],
    recent: [],
    seq: 0,
    prev_assistant: null,
    last: null,
    interrupted: false,
    host_turn: false,
    last_tool_call: null,
    pending_calls: [],
    cursor: emptyCursor(),
    captured_tokens: 0,
  };
}

const CURSOR_DATA = {
  lastIndex: asNumber,
  lastId: asStringOrNull,
  lastTs: (v: unknown, f: string) => (v === null || v === undefined ? null : asNumber(v, f)),
  idsAtLastTs: asStringArray,
  processed: asNumber,
};
const LAST_DATA = {
  role: oneOf(["user", "assistant", "toolResult"], "unknown role"),
  stopReason: asStringOrNull,
  hasToolCalls: (v: unknown) => v === true,
  endsWithQuestion: (v: unknown) => v === true,
  tail: (v: unknown) => (typeof v === "string" ? v : ""),
};
const PREV_ASSISTANT_DATA = { long: (v: unknown) => v === true, proposal: asString };

/** `check`, with null and undefined read as null. */
const orNull =
  <T>(check: Check<T>): Check<T | null> =>
  (v, f) =>
    v === null || v === undefined ? null : check(v, f);

export function parseThreadData(
  d: Record<string, unknown>,
  maxExchanges: number,
): { thread: Omit<ThreadData, "errors">; errors: ToolFailure[] } {
  const exchange = orNull((v, f) => asFields(v, f, EXCHANGE_DATA));
  const cursor = asFields(d.cursor, "cursor", CURSOR_DATA);
  const last = orNull((v, f) => asFields(v, f, LAST_DATA))(d.last, "last");
  const prevAssistant = orNull((v, f) => asFields(v, f, PREV_ASSISTANT_DATA))(d.prev_assistant, "prev_assistant");
  const errors = asRecords(d.errors, "errors", TOOL_FAILURE_DATA);
  const thread: Omit<ThreadData, "errors"> = {
    first_user: asStringOrNull(d.first_user, "first_user"),
    first_exchange: d.first_exchange ? exchange(d.first_exchange, "first_exchange") : null,
    last_user: asStringOrNull(d.last_user, "last_user"),
    pivots: keepNewest(asRecords(d.pivots, "pivots", EXCHANGE_DATA), maxExchanges),
    recent: keepNewest(asRecords(d.recent, "recent", EXCHANGE_DATA), RECENT_ENTRIES),
    seq: asNumber(d.seq, "seq"),
    prev_assistant: prevAssistant,
    last,
    interrupted: d.interrupted === true,
    host_turn: d.host_turn === true,
    last_tool_call: orNull((v, f) => asFields(v, f, TOOL_CALL_DATA))(d.last_tool_call, "last_tool_call"),
    pending_calls: asRecords(d.pending_calls, "pending_calls", PENDING_CALL_DATA),
    cursor,
    // absent in files written before it was kept: nothing counted yet
    captured_tokens: typeof d.captured_tokens === "number" && Number.isFinite(d.captured_tokens) && d.captured_tokens > 0 ? Math.floor(d.captured_tokens) : 0,
  };
  return { thread, errors };
}
