/**
 * What a capture writes into: the accumulators (CapturedState), the texts whose gists wait for
 * the pass's end (DeferredGists), and which state files changed since the last flush.
 */
import type { LastToolCall } from "../checkpoint/schema.js";
import type { OnceLogger } from "../../infra/log-once.js";
import { type CaptureCaps, CapturedState } from "./captured-state.js";
import type { LastMessageInfo } from "./message-rules.js";
import type { StateFileName } from "./state-files.js";
import type { Exchange, ThreadData } from "./thread-data.js";

/**
 * The texts a later message of the same pass may replace or evict (a turn's outcome, the latest
 * report, the last message's tail, the exchanges, a long answer's proposal, a file's latest
 * change, the last and pending calls): kept raw and gisted (redacted, then cut) only if still
 * standing when the pass ends (pass-settle.ts); on a long history most are overwritten or evicted.
 */
export class DeferredGists {
  /** each turn's texts by turn-log entry, oldest first (the latest with a gist stands for the turn) */
  turnTexts = new Map<object, string[]>();
  /** turn-ending texts with the request number they answered, oldest first */
  reports: Array<{ text: string; seq: number }> = [];
  /** the last message's info object, whose tail is this text's last line */
  tail: { last: LastMessageInfo; text: string } | null = null;
  /** exchanges (by identity) and their text */
  exchanges = new Map<Exchange, string>();
  /** a long answer's proposal, by the prev_assistant object it belongs to */
  proposal: { of: NonNullable<ThreadData["prev_assistant"]>; text: string } | null = null;
  /** per changed path, this pass's edit/write calls, oldest first (the latest with a gist stands) */
  changes = new Map<string, Array<{ tool: string; input: unknown }>>();
  /** summaries not taken yet, by the last_tool_call or pending call object they fill */
  calls = new Map<LastToolCall, { name: string; args: unknown }>();

  clearPass(): void {
    this.turnTexts.clear();
    this.reports = [];
    this.tail = null;
    this.exchanges.clear();
    this.changes.clear();
    this.calls.clear();
  }
}

export class CaptureTarget {
  /** the accumulators, one group per state file */
  readonly acc: CapturedState;
  /** texts not gisted yet: settled at the end of each capture pass */
  readonly deferred = new DeferredGists();
  readonly dirtyFiles = new Set<StateFileName>();
  /** inside captureMessages: a tool result's change gist can wait for the pass's end */
  inPass = false;

  constructor(
    caps: CaptureCaps,
    readonly log: OnceLogger,
  ) {
    this.acc = new CapturedState(caps);
  }

  mark(name: StateFileName): void {
    this.dirtyFiles.add(name);
  }

  touchTool(tool: string): void {
    if (this.acc.resources.touchTool(tool)) this.mark("resources");
  }

  touchFile(p: string, access: "read" | "modified"): void {
    if (this.acc.resources.touchFile(p, access)) this.mark("resources");
  }

  openItem(key: string, text: string): void {
    if (this.acc.items.openItem(key, text)) this.mark("open_items");
  }

  closeItem(key: string): void {
    if (this.acc.items.closeItem(key)) this.mark("open_items");
  }

  /** A call whose summary is taken when the pass ends (pass-settle.ts settleCall). */
  deferCall<T extends LastToolCall>(entry: T, name: string, args: unknown): T {
    this.deferred.calls.set(entry, { name, args });
    return entry;
  }
}
