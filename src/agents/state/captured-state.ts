/**
 * The capture's accumulators, one group per state file, each capped (oldest evicted), with each
 * file's `data` (shape and key order are the on-disk format) and the snapshot the checkpoint reads.
 * Strings arrive redacted and gisted.
 */
import type { KeyExchange, Resources, ToolFailure, WorkingStatus } from "../checkpoint/schema.js";
import { itemKey, statusOf } from "./capture-rules.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { gist } from "../text/gist.js";
import { LruMap, keepNewest } from "./lru.js";
import { StateDataError, asFields, asObject, asString, type StateFileName } from "./state-files.js";
import { asStringArray, records } from "./state-files.js";
import { RECENT_ENTRIES, THREAD_DATA, TOOL_FAILURE_DATA, emptyThread, type ThreadData } from "./thread-data.js";
import { WorkLedger } from "./work-ledger.js";

type Data = Record<string, unknown>;

export type CaptureCaps = Pick<
  ContextManagerConfig,
  "maxDecisions" | "maxExchanges" | "maxTools" | "maxFiles" | "maxOpenItems" | "maxLearnings" | "maxErrors"
>;

const CLOSED_ITEMS_FACTOR = 4;

export class CapturedState {
  // decisions.json: what -> decision
  readonly decisions: LruMap<string, { what: string; when: string }>;
  // resources.json: files read, modified (a file is in one list), tools used
  readonly resources: { readonly [K in keyof Resources]: LruMap<string, true> };
  // open_items.json: open items by key, and those closed since the checkpoint (itemKey -> text), which it drops
  readonly open: LruMap<string, string>;
  readonly closed: LruMap<string, string>;
  // learnings.json: itemKey(text) -> text
  readonly learnings: LruMap<string, string>;
  // thread.json
  readonly errors: LruMap<string, ToolFailure>;
  thread = emptyThread();
  work: WorkLedger;
  /** the files changed since the last flush */
  readonly dirty = new Set<StateFileName>();

  constructor(readonly caps: CaptureCaps) {
    this.decisions = new LruMap(caps.maxDecisions);
    const files = (): LruMap<string, true> => new LruMap(caps.maxFiles);
    this.resources = { files_read: files(), files_modified: files(), tools_used: new LruMap(caps.maxTools) };
    this.open = new LruMap(caps.maxOpenItems);
    this.closed = new LruMap(caps.maxOpenItems * CLOSED_ITEMS_FACTOR);
    this.learnings = new LruMap(caps.maxLearnings);
    this.errors = new LruMap(caps.maxErrors);
    this.work = new WorkLedger(caps);
  }

  mark(name: StateFileName): void {
    this.dirty.add(name);
  }

  addDecision(what: string, when: string): void {
    this.decisions.touch(what, { what, when });
    this.mark("decisions");
  }

  addLearning(text: string): void {
    this.learnings.touch(itemKey(text), text);
    this.mark("learnings");
  }

  addError(f: ToolFailure): void {
    this.errors.touch(errorKey(f), f);
    this.mark("thread");
  }

  touchTool(tool: string): void {
    const tools = this.resources.tools_used;
    if (tools.isNewest(tool)) return;
    tools.touch(tool, true);
    this.mark("resources");
  }

  touchFile(p: string, access: "read" | "modified"): void {
    const { files_read: read, files_modified: modified } = this.resources;
    if (modified.isNewest(p) || (access === "read" && read.isNewest(p))) return;
    if (access === "modified") read.delete(p);
    (access === "modified" || modified.has(p) ? modified : read).touch(p, true);
    this.mark("resources");
  }

  openItem(key: string, text: string): void {
    if (!text || this.open.get(key) === text) return;
    this.open.touch(key, text);
    this.closed.delete(itemKey(text));
    this.mark("open_items");
  }

  /** Returns false when no item is open under `key`. */
  closeItem(key: string): boolean {
    const text = this.open.get(key);
    if (text === undefined) return false;
    this.open.delete(key);
    this.closed.touch(itemKey(text), text);
    this.mark("open_items");
    return true;
  }

  /**
   * Closes every open item whose text has the same itemKey as `text`; returns how many. With none,
   * `text` is recorded closed (it closes the same item carried forward from an earlier checkpoint).
   */
  closeByText(text: string): number {
    const k = itemKey(text);
    let closed = 0;
    for (const [key, value] of this.open) if (itemKey(value) === k && this.closeItem(key)) closed++;
    if (closed === 0) this.closed.touch(k, text);
    this.mark("open_items");
    return closed;
  }

  /** After a checkpoint: clears the delta it now holds; the current situation and the work ledger stay. */
  clearCheckpointed(): void {
    const lists = [this.decisions, this.errors, this.learnings, this.closed, ...Object.values(this.resources)];
    for (const list of lists) list.clear();
    this.thread.pivots = [];
    this.thread.recent = [];
    this.thread.captured_tokens = 0;
  }
}

/** One error per tool, target and error line (the checkpoint merges by the same key). */
export const errorKey = (f: ToolFailure): string => `${f.tool}\u0000${f.target}\u0000${f.error}`;

/** The resource lists in checkpoint form; also resources.json's data. */
const resourcesOf = (s: CapturedState): Resources =>
  Object.fromEntries(Object.entries(s.resources).map(([k, list]) => [k, [...list.keys()]])) as Resources;

/** Per state file its data and back; an apply parses everything before it adds: never half-merged. */
type Codec = { data(s: CapturedState): unknown; apply(s: CapturedState, d: Data): void };
const CODEC: { readonly [N in StateFileName]: Codec } = {
  decisions: {
    data: (s) => ({ items: s.decisions.list() }),
    apply: (s, d) => {
      const items = records({ what: asString, when: asString })(d.items, "items");
      for (const { what, when } of items) s.addDecision(what, when);
    },
  },
  thread: {
    data: (s) => ({ ...s.thread, errors: s.errors.list() }) satisfies ThreadData,
    apply: (s, d) => {
      const { errors, ...thread } = asFields(d, "", { ...THREAD_DATA, errors: records(TOOL_FAILURE_DATA) });
      thread.pivots = keepNewest(thread.pivots, s.caps.maxExchanges);
      thread.recent = keepNewest(thread.recent, RECENT_ENTRIES);
      s.thread = thread;
      for (const e of errors) s.addError(e);
    },
  },
  resources: {
    data: resourcesOf,
    apply: (s, d) => {
      const read = Object.entries(s.resources).map(([k, list]) => [list, asStringArray(d[k], k)] as const);
      for (const [list, items] of read) for (const p of items) list.touch(p, true);
    },
  },
  open_items: {
    data: (s) => ({ open: [...s.open].map(([key, text]) => ({ key, text })), closed: s.closed.list() }),
    apply: (s, d) => {
      const open = records({ key: asString, text: asString })(d.open, "open");
      const closed = asStringArray(d.closed, "closed");
      for (const { key, text } of open) s.open.touch(key, text);
      for (const text of closed) s.closed.touch(itemKey(text), text);
    },
  },
  learnings: {
    data: (s) => ({ items: s.learnings.list() }),
    apply: (s, d) => {
      for (const text of asStringArray(d.items, "items")) s.addLearning(text);
    },
  },
  work: {
    data: (s) => s.work.toData(),
    apply: (s, d) => {
      s.work = WorkLedger.fromData(d, s.caps);
    },
  },
};
export function stateFileData(s: CapturedState, name: StateFileName): unknown {
  return CODEC[name].data(s);
}

/** Applies one file's data; on a bad shape adds nothing and returns `invalid data: <field>: ...`. */
export function applyStateFile(s: CapturedState, name: StateFileName, raw: unknown): string | null {
  try {
    CODEC[name].apply(s, asObject(raw, "data"));
    // loaded data is no change to write back
    s.dirty.clear();
    return null;
  } catch (err) {
    return `invalid data: ${err instanceof StateDataError ? err.message : String(err)}`;
  }
}

/**
 * What the checkpoint builder reads: the lists hold what came since the last checkpoint (oldest
 * first), the rest is the current situation; status and next_action derived, never stored.
 */
export type ContextStateSnapshot = ReturnType<typeof snapshotOf>;

export function snapshotOf(s: CapturedState) {
  const t = s.thread;
  const status = statusOf(t.last);
  return {
    firstUser: t.first_user,
    lastUser: t.last_user,
    keyExchanges: keyExchanges(s),
    errors: s.errors.list(),
    decisions: s.decisions.list(),
    resources: resourcesOf(s),
    openItems: s.open.list(),
    // to remove from a carried-forward checkpoint
    closedItems: s.closed.list(),
    learnings: s.learnings.list(),
    status,
    nextAction: nextActionOf(s, status),
    interrupted: t.interrupted,
    lastToolCall: t.last_tool_call,
    // false until a conversational message was captured (nothing to say about status)
    hasActivity: t.last !== null,
    messagesSeen: t.cursor.processed,
    work: s.work.snapshot(),
  };
}

/** The request as quoted inside next_action (the full gist is on the Working on line). */
const REQUEST_IN_ACTION = 60;

/** working.next_action: fixed templates; never a failure or an open item (they have their own sections). */
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
  const bySeq = new Map([...t.pivots, ...t.recent].map((e) => [e.seq, e]));
  const first = t.first_exchange;
  if (first) bySeq.delete(first.seq);
  const rest = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  const room = Math.max(0, s.caps.maxExchanges - (first ? 1 : 0));
  const kept = keepNewest(rest, room);
  const out = first ? [first, ...kept] : kept;
  return out.map((e) => ({ role: e.role, gist: e.gist }));
}
