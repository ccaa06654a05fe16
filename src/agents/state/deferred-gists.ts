/**
 * The texts whose gists a later message of the same capture pass may replace or evict: a turn's
 * outcome (its latest text), the latest report, the last message's tail, the exchanges (recent,
 * pivots, the first), a long answer's proposal, a changed file's latest change, the last and the
 * pending tool calls. The capture keeps the raw texts here and gists (redacts, then cuts) only
 * those still standing when the pass ends: on a long history most are overwritten or evicted.
 * The gists are the ones the capture took per message before.
 */
import type { LastToolCall } from "../checkpoint/schema.js";
import type { LastMessageInfo } from "./message-rules.js";
import type { Exchange, ThreadData } from "./thread-data.js";

/** An edit or write call's input, for its change gist (messages/tool-outcome.ts changeGist). */
export interface DeferredChange {
  tool: string;
  input: unknown;
}

/** A tool call whose summary (message-rules.ts summarizeToolCall) is not taken yet. */
export interface DeferredCall {
  name: string;
  args: unknown;
}

export class DeferredGists {
  /** each turn's texts, oldest first (the latest one whose gist is not empty stands for the turn), by turn-log entry */
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
  changes = new Map<string, DeferredChange[]>();
  /** summaries not taken yet, by the last_tool_call or pending call object they fill */
  calls = new Map<LastToolCall, DeferredCall>();

  clearPass(): void {
    this.turnTexts.clear();
    this.reports = [];
    this.tail = null;
    this.exchanges.clear();
    this.changes.clear();
    this.calls.clear();
  }
}
