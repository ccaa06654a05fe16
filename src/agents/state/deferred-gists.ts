/**
 * The assistant texts whose gists a later message of the same capture pass may replace: the
 * turn's outcome (its latest text), the latest report, the last message's tail, the agent's
 * exchange in the recent list, a long answer's proposal. The capture keeps the raw texts here
 * and gists (redacts, then cuts) only those still standing when the turn or the pass ends: on a
 * long history most are overwritten or evicted, and the gists were most of the capture's cost.
 * The gists are the same ones the capture took per message before.
 */
import type { LastMessageInfo } from "../context-capture.js";
import type { Exchange, ThreadData } from "./thread-data.js";

export class DeferredGists {
  /** the current turn's texts, oldest first (the latest one whose gist is not empty stands for the turn) */
  turnTexts: string[] = [];
  /** turn-ending texts with the request number they answered, oldest first */
  reports: Array<{ text: string; seq: number }> = [];
  /** the last message's info object, whose tail is this text's last line */
  tail: { last: LastMessageInfo; text: string } | null = null;
  /** agent exchanges (by identity) and their text */
  exchanges = new Map<Exchange, string>();
  /** a long answer's proposal, by the prev_assistant object it belongs to */
  proposal: { of: NonNullable<ThreadData["prev_assistant"]>; text: string } | null = null;

  clearPass(): void {
    this.reports = [];
    this.tail = null;
    this.exchanges.clear();
  }
}
