/** thread.json's data: the running conversation state, its empty value and its parser (StateDataError on a bad shape). */
import type { ToolFailure } from "../checkpoint/schema.js";
import { keepNewest } from "./lru.js";
import { CURSOR_DATA, emptyCursor } from "./message-cursor.js";
import { type Fields, asFields, asNumber, asRecords, asString, asStringOrNull } from "./state-files.js";
import { isTrue, oneOf, orNull, record } from "./state-files.js";

/** Recent user/agent entries kept for "always include the last 2 exchange pairs" (spec §11.2). */
export const RECENT_ENTRIES = 4;

export const TOOL_FAILURE_DATA = { tool: asString, target: asString, error: asString, when: asString };
const EXCHANGE_DATA = { seq: asNumber, role: oneOf(["user", "agent"], "expected user or agent"), gist: asString };
const exchanges = (v: unknown, f: string) => asRecords(v, f, EXCHANGE_DATA);
const TOOL_CALL_DATA = { name: asString, params_summary: asString };
/** What the last conversational message says about the working status (message-rules.ts statusOf). */
const LAST_DATA = {
  role: oneOf(["user", "assistant", "toolResult"], "unknown role"),
  stopReason: asStringOrNull,
  hasToolCalls: isTrue,
  endsWithQuestion: isTrue,
  // last non-blank line of the last assistant text (for "wait for reply to ..."), gisted
  tail: (v: unknown) => (typeof v === "string" ? v : ""),
};

const THREAD_DATA = {
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
  pending_calls: (v: unknown, f: string) => asRecords(v, f, { id: asString, ...TOOL_CALL_DATA }),
  cursor: record(CURSOR_DATA),
  // tokens captured since the latest checkpoint (the auto-80pct dedup); absent in older files
  captured_tokens: (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0),
};

export type Exchange = Fields<typeof EXCHANGE_DATA>;
export type LastMessageInfo = Fields<typeof LAST_DATA>;
/** thread.json's data but the errors (kept in their own capped map). */
export type Thread = Fields<typeof THREAD_DATA>;
export type ThreadData = Thread & { errors: ToolFailure[] };

export function emptyThread(): Thread {
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

export function parseThreadData(d: Record<string, unknown>, maxExchanges: number): ThreadData {
  const thread = asFields(d, "", { ...THREAD_DATA, errors: (v, f) => asRecords(v, f, TOOL_FAILURE_DATA) });
  thread.pivots = keepNewest(thread.pivots, maxExchanges);
  thread.recent = keepNewest(thread.recent, RECENT_ENTRIES);
  return thread;
}
