/**
 * The capture's accumulators, one group per state file, each capped with O(1) dedup, oldest
 * evicted. Strings arrive redacted and gisted; no I/O here (state-codec.ts does the files).
 */
import type { ToolFailure } from "../checkpoint/schema.js";
import { itemKey } from "./message-rules.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { LruMap } from "./lru.js";
import { OpenItems } from "./open-items.js";
import { ResourceLists } from "./resource-lists.js";
import { emptyThread, type ThreadData } from "./thread-data.js";
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
  thread: Omit<ThreadData, "errors">;
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
    this.errors.touch(`${f.tool}\u0000${f.target}\u0000${f.error}`, f);
  }

  /** Replaces thread.json's part (parsed by parseThreadData). */
  setThread(thread: Omit<ThreadData, "errors">, errors: readonly ToolFailure[]): void {
    this.thread = thread;
    for (const e of errors) this.addError(e);
  }

  clearThread(): void {
    this.errors.clear();
    this.thread = emptyThread();
  }

  clearWork(): void {
    this.work = new WorkLedger(workCaps(this.caps));
  }

  /**
   * After a checkpoint: clears the delta it now holds. Keeps what is the current situation, not
   * a delta: the cursor, first and last user message, open items and pending calls (a later
   * success must still close them), the last-message facts, the work ledger.
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

export function workCaps(c: CaptureCaps): WorkLedgerCaps {
  return { maxFiles: c.maxFiles, maxCommands: 30, maxFailures: c.maxErrors, maxRequests: 12 };
}
