/**
 * The capture's accumulators, one group per state file, each capped with O(1) dedup, oldest
 * evicted, and per state file its `data` and back (the shape and key order are the on-disk
 * format; a failed apply clears what it added: never half-merged). Strings arrive redacted and gisted.
 */
import type { Resources, ToolFailure } from "../checkpoint/schema.js";
import { itemKey } from "./message-rules.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { LruMap } from "./lru.js";
import { StateDataError, asObject, asRecords, asString, asStringArray, type StateFileName } from "./state-files.js";
import { emptyThread, parseThreadData, type Thread, type ThreadData } from "./thread-data.js";
import { WorkLedger, type WorkLedgerCaps } from "./work-ledger.js";

export type CaptureCaps = Pick<
  ContextManagerConfig,
  "maxDecisions" | "maxExchanges" | "maxTools" | "maxFiles" | "maxOpenItems" | "maxLearnings" | "maxErrors"
>;

export interface CapturedDecision {
  what: string;
  /** ISO-8601 UTC */
  when: string;
}

export class CapturedState {
  // decisions.json: what -> decision
  readonly decisions: LruMap<string, CapturedDecision>;
  // resources.json
  readonly resources: ResourceLists;
  // open_items.json
  readonly items: OpenItems;
  // learnings.json: itemKey(text) -> text
  readonly learnings: LruMap<string, string>;
  // thread.json
  readonly errors: LruMap<string, ToolFailure>;
  thread: Thread;
  // work.json
  work: WorkLedger;

  constructor(readonly caps: CaptureCaps) {
    this.decisions = new LruMap(caps.maxDecisions);
    this.resources = new ResourceLists(caps.maxFiles, caps.maxTools);
    this.items = new OpenItems(caps.maxOpenItems);
    this.learnings = new LruMap(caps.maxLearnings);
    this.errors = new LruMap(caps.maxErrors);
    this.thread = emptyThread();
    this.work = new WorkLedger(workCaps(caps));
  }

  addDecision(what: string, when: string): void {
    this.decisions.touch(what, { what, when });
  }

  addLearning(text: string): void {
    this.learnings.touch(itemKey(text), text);
  }

  addError(f: ToolFailure): void {
    this.errors.touch(errorKey(f), f);
  }

  /**
   * After a checkpoint: clears the delta it now holds; the current situation stays (cursor, first
   * and last user message, open items and pending calls, last-message facts, the work ledger).
   */
  clearCheckpointed(): void {
    this.decisions.clear();
    this.resources.clear();
    this.errors.clear();
    this.learnings.clear();
    this.items.clearClosed();
    this.thread.pivots = [];
    this.thread.recent = [];
    this.thread.captured_tokens = 0;
  }
}

/** One error per tool, target and error line (the checkpoint merges by the same key). */
export const errorKey = (f: ToolFailure): string => `${f.tool}\u0000${f.target}\u0000${f.error}`;

export function workCaps(c: CaptureCaps): WorkLedgerCaps {
  return { maxFiles: c.maxFiles, maxCommands: 30, maxFailures: c.maxErrors, maxRequests: 12 };
}

/** resources.json: files read, modified (a file is in one list), tools used; false: nothing changed. */
export class ResourceLists {
  private readonly filesRead: LruMap<string, true>;
  private readonly filesModified: LruMap<string, true>;
  private readonly toolsUsed: LruMap<string, true>;

  constructor(maxFiles: number, maxTools: number) {
    this.filesRead = new LruMap(maxFiles);
    this.filesModified = new LruMap(maxFiles);
    this.toolsUsed = new LruMap(maxTools);
  }

  touchTool(tool: string): boolean {
    if (this.toolsUsed.isNewest(tool)) return false;
    this.toolsUsed.touch(tool, true);
    return true;
  }

  touchFile(p: string, access: "read" | "modified"): boolean {
    if (this.filesModified.isNewest(p) || (access === "read" && this.filesRead.isNewest(p))) return false;
    if (access === "modified") {
      this.filesRead.delete(p);
      this.filesModified.touch(p, true);
    } else if (this.filesModified.has(p)) {
      this.filesModified.touch(p, true);
    } else {
      this.filesRead.touch(p, true);
    }
    return true;
  }

  clear(): void {
    this.filesRead.clear();
    this.filesModified.clear();
    this.toolsUsed.clear();
  }

  /** The lists in checkpoint form; also the file's data. */
  snapshot(): Resources {
    return { files_read: this.filesRead.keys(), files_modified: this.filesModified.keys(), tools_used: this.toolsUsed.keys() };
  }

  /** Adds persisted data; throws StateDataError naming the field on a bad shape. */
  applyData(d: Record<string, unknown>): void {
    for (const p of asStringArray(d.files_read, "files_read")) this.filesRead.touch(p, true);
    for (const p of asStringArray(d.files_modified, "files_modified")) this.filesModified.touch(p, true);
    for (const p of asStringArray(d.tools_used, "tools_used")) this.toolsUsed.touch(p, true);
  }
}

/**
 * open_items.json: open items by key (`note`, `task`, `pending`, `interrupted` + id) and those
 * closed since the last checkpoint, which a carried-forward checkpoint drops; false: nothing changed.
 */
const CLOSED_ITEMS_FACTOR = 4;

export class OpenItems {
  private readonly open: LruMap<string, string>;
  private readonly closed: LruMap<string, string>;

  constructor(maxOpenItems: number) {
    this.open = new LruMap(maxOpenItems);
    this.closed = new LruMap(maxOpenItems * CLOSED_ITEMS_FACTOR);
  }

  openItem(key: string, text: string): boolean {
    if (!text) return false;
    if (this.open.get(key) === text) return false;
    this.open.touch(key, text);
    this.closed.delete(itemKey(text));
    return true;
  }

  /** Returns false when no item is open under `key`. */
  closeItem(key: string): boolean {
    const text = this.open.get(key);
    if (text === undefined) return false;
    this.open.delete(key);
    this.closed.touch(itemKey(text), text);
    return true;
  }

  /** Closes every open item whose text has the same itemKey as `text`; returns how many. */
  closeByText(text: string): number {
    const k = itemKey(text);
    let closed = 0;
    for (const [key, value] of this.open.entries()) {
      if (itemKey(value) === k && this.closeItem(key)) closed++;
    }
    return closed;
  }

  /** Records `text` as closed without an open item (one carried forward from a checkpoint). */
  markClosed(text: string): void {
    this.closed.touch(itemKey(text), text);
  }

  /** Keys of the open items, oldest first. */
  keys(): string[] {
    return this.open.keys();
  }

  openTexts(): string[] {
    return this.open.values();
  }

  closedTexts(): string[] {
    return this.closed.values();
  }

  /** After a checkpoint: the checkpoint holds what was closed. */
  clearClosed(): void {
    this.closed.clear();
  }

  clear(): void {
    this.open.clear();
    this.closed.clear();
  }

  toData(): unknown {
    return { open: this.open.entries().map(([key, text]) => ({ key, text })), closed: this.closed.values() };
  }

  /** Adds persisted data; throws StateDataError naming the field on a bad shape. */
  applyData(d: Record<string, unknown>): void {
    const open = asRecords(d.open, "open", { key: asString, text: asString });
    for (const { key, text } of open) this.open.touch(key, text);
    for (const text of asStringArray(d.closed, "closed")) this.closed.touch(itemKey(text), text);
  }
}

interface StateFileCodec {
  data(s: CapturedState): unknown;
  clear(s: CapturedState): void;
  apply(s: CapturedState, d: Record<string, unknown>): void;
}

const CODEC: { readonly [N in StateFileName]: StateFileCodec } = {
  decisions: {
    data: (s) => ({ items: s.decisions.values() }),
    clear: (s) => s.decisions.clear(),
    apply: (s, d) => {
      const items = asRecords(d.items, "items", { what: asString, when: asString });
      for (const { what, when } of items) s.addDecision(what, when);
    },
  },
  thread: {
    data: (s) => ({ ...s.thread, errors: s.errors.values() }) satisfies ThreadData,
    clear: (s) => {
      s.errors.clear();
      s.thread = emptyThread();
    },
    apply: (s, d) => {
      const { errors, ...thread } = parseThreadData(d, s.caps.maxExchanges);
      s.thread = thread;
      for (const e of errors) s.addError(e);
    },
  },
  resources: {
    data: (s) => s.resources.snapshot(),
    clear: (s) => s.resources.clear(),
    apply: (s, d) => s.resources.applyData(d),
  },
  open_items: {
    data: (s) => s.items.toData(),
    clear: (s) => s.items.clear(),
    apply: (s, d) => s.items.applyData(d),
  },
  learnings: {
    data: (s) => ({ items: s.learnings.values() }),
    clear: (s) => s.learnings.clear(),
    apply: (s, d) => {
      for (const text of asStringArray(d.items, "items")) s.addLearning(text);
    },
  },
  work: {
    data: (s) => s.work.toData(),
    clear: (s) => (s.work = new WorkLedger(workCaps(s.caps))),
    apply: (s, d) => {
      s.work = WorkLedger.fromData(d, workCaps(s.caps));
    },
  },
};

/** The `data` of state file `name`. */
export function stateFileData(s: CapturedState, name: StateFileName): unknown {
  return CODEC[name].data(s);
}

/** Applies one file's data; on a bad shape clears it and returns `invalid data: <field>: ...`. */
export function applyStateFile(s: CapturedState, name: StateFileName, raw: unknown): string | null {
  try {
    CODEC[name].apply(s, asObject(raw, "data"));
    return null;
  } catch (err) {
    CODEC[name].clear(s);
    return `invalid data: ${err instanceof StateDataError ? err.message : String(err)}`;
  }
}
