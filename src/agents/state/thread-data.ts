/** thread.json's data: the running conversation state, its empty value and its parser (StateDataError on a bad shape). */
import type { KeyExchange, LastToolCall, ToolFailure } from "../checkpoint/schema.js";
import type { LastMessageInfo } from "./message-rules.js";
import { keepNewest } from "./lru.js";
import { type Cursor, emptyCursor } from "./message-cursor.js";
import { StateDataError, asArray, asNumber, asObject, asString, asStringArray, asStringOrNull } from "./state-files.js";

/** Recent user/agent entries kept for "always include the last 2 exchange pairs" (spec §11.2). */
export const RECENT_ENTRIES = 4;

export interface Exchange {
  seq: number;
  role: KeyExchange["role"];
  gist: string;
}

export interface PendingCall {
  id: string;
  name: string;
  params_summary: string;
}

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

export function parseThreadData(
  d: Record<string, unknown>,
  maxExchanges: number,
): { thread: Omit<ThreadData, "errors">; errors: ToolFailure[] } {
  const exchange = (v: unknown, f: string): Exchange => {
    const o = asObject(v, f);
    const role = asString(o.role, `${f}.role`);
    if (role !== "user" && role !== "agent") throw new StateDataError(`${f}.role: expected user or agent`);
    return { seq: asNumber(o.seq, `${f}.seq`), role, gist: asString(o.gist, `${f}.gist`) };
  };
  const toolCall = (v: unknown, f: string): LastToolCall | null => {
    if (v === null || v === undefined) return null;
    const o = asObject(v, f);
    return { name: asString(o.name, `${f}.name`), params_summary: asString(o.params_summary, `${f}.params_summary`) };
  };
  const c = asObject(d.cursor, "cursor");
  const lastTs = c.lastTs;
  const cursor: Cursor = {
    lastIndex: asNumber(c.lastIndex, "cursor.lastIndex"),
    lastId: asStringOrNull(c.lastId, "cursor.lastId"),
    lastTs: lastTs === null || lastTs === undefined ? null : asNumber(lastTs, "cursor.lastTs"),
    idsAtLastTs: asStringArray(c.idsAtLastTs, "cursor.idsAtLastTs"),
    processed: asNumber(c.processed, "cursor.processed"),
  };
  let last: LastMessageInfo | null = null;
  if (d.last !== null && d.last !== undefined) {
    const o = asObject(d.last, "last");
    const role = asString(o.role, "last.role");
    if (role !== "user" && role !== "assistant" && role !== "toolResult") throw new StateDataError("last.role: unknown role");
    last = {
      role,
      stopReason: asStringOrNull(o.stopReason, "last.stopReason"),
      hasToolCalls: o.hasToolCalls === true,
      endsWithQuestion: o.endsWithQuestion === true,
      tail: typeof o.tail === "string" ? o.tail : "",
    };
  }
  let prevAssistant: ThreadData["prev_assistant"] = null;
  if (d.prev_assistant !== null && d.prev_assistant !== undefined) {
    const o = asObject(d.prev_assistant, "prev_assistant");
    prevAssistant = { long: o.long === true, proposal: asString(o.proposal, "prev_assistant.proposal") };
  }
  const errors = asArray(d.errors, "errors").map((v, i) => {
    const o = asObject(v, `errors[${i}]`);
    return {
      tool: asString(o.tool, `errors[${i}].tool`),
      target: asString(o.target, `errors[${i}].target`),
      error: asString(o.error, `errors[${i}].error`),
      when: asString(o.when, `errors[${i}].when`),
    };
  });
  const thread: Omit<ThreadData, "errors"> = {
    first_user: asStringOrNull(d.first_user, "first_user"),
    first_exchange: d.first_exchange ? exchange(d.first_exchange, "first_exchange") : null,
    last_user: asStringOrNull(d.last_user, "last_user"),
    pivots: keepNewest(asArray(d.pivots, "pivots").map((v, i) => exchange(v, `pivots[${i}]`)), maxExchanges),
    recent: keepNewest(asArray(d.recent, "recent").map((v, i) => exchange(v, `recent[${i}]`)), RECENT_ENTRIES),
    seq: asNumber(d.seq, "seq"),
    prev_assistant: prevAssistant,
    last,
    interrupted: d.interrupted === true,
    host_turn: d.host_turn === true,
    last_tool_call: toolCall(d.last_tool_call, "last_tool_call"),
    pending_calls: asArray(d.pending_calls, "pending_calls").map((v, i) => {
      const o = asObject(v, `pending_calls[${i}]`);
      return {
        id: asString(o.id, `pending_calls[${i}].id`),
        name: asString(o.name, `pending_calls[${i}].name`),
        params_summary: asString(o.params_summary, `pending_calls[${i}].params_summary`),
      };
    }),
    cursor,
    // absent in files written before it was kept: nothing counted yet
    captured_tokens: typeof d.captured_tokens === "number" && Number.isFinite(d.captured_tokens) && d.captured_tokens > 0 ? Math.floor(d.captured_tokens) : 0,
  };
  return { thread, errors };
}
