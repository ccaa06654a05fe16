/**
 * Tool call chars remembered between a session's breakdowns. Requests get fresh copies and a lookup
 * by id cost more than the rest of the breakdown, so a pass finds each reply's calls where the last
 * pass had them and reuses a size while argsShape matches: 12 bytes per reply, 8 per call (docs/benchmarks.md).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { argsShape, type CallBlock, toolCallChars } from "../messages/argument-chars.js";
import { grown } from "../archive/arrays.js";

/** Rows a pass looks ahead for a reply before it looks the reply up by time. */
const LOOKAHEAD = 8;

/** One pass's replies with calls, as parallel arrays (no object per row), grown in place. */
class CallTable {
  rows = 0;
  calls = 0;
  ts: Float64Array;
  /** row r's calls are start[r] .. start[r + 1] - 1 */
  start: Int32Array;
  shapes: Int32Array;
  chars: Int32Array;

  constructor(rows = 0, calls = 0) {
    this.ts = new Float64Array(rows);
    this.start = new Int32Array(rows + 1);
    this.shapes = new Int32Array(calls);
    this.chars = new Int32Array(calls);
  }

  bytes(): number {
    return this.ts.byteLength + this.start.byteLength + this.shapes.byteLength + this.chars.byteLength;
  }

  /** A row of the calls in `blocks`: a size from `last` [k, end) while the shape matches, else stringified. */
  addRow(ts: number, blocks: readonly CallBlock[], last: CallTable, k: number, end: number, sizes: CallSizes): number {
    this.ts = grown(this.ts, this.rows + 1, this.rows);
    this.start = grown(this.start, this.rows + 2, this.rows + 1);
    this.ts[this.rows] = ts;
    let total = 0;
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b?.type !== "toolCall") continue;
      const shape = argsShape(b);
      const chars = k < end && last.shapes[k] === shape ? last.chars[k]! : sizes.size(b);
      k++;
      this.shapes = grown(this.shapes, this.calls + 1, this.calls);
      this.chars = grown(this.chars, this.calls + 1, this.calls);
      this.shapes[this.calls] = shape;
      this.chars[this.calls++] = chars;
      total += chars;
    }
    this.start[++this.rows] = this.calls;
    return total;
  }

  trimmed(): CallTable {
    const out = new CallTable();
    out.rows = this.rows;
    out.calls = this.calls;
    out.ts = this.ts.slice(0, this.rows);
    out.start = this.start.slice(0, this.rows + 1);
    out.shapes = this.shapes.slice(0, this.calls);
    out.chars = this.chars.slice(0, this.calls);
    return out;
  }
}

const EMPTY = new CallTable();

/** An assistant reply's content when it has tool calls, else null. */
function callsOf(m: AgentMessage | undefined): CallBlock[] | null {
  const c = (m as { content?: unknown } | undefined)?.content;
  return m?.role === "assistant" && Array.isArray(c) && c.some((b: CallBlock) => b?.type === "toolCall") ? c : null;
}

const stampOf = (m: AgentMessage | undefined): number => {
  const t = (m as { timestamp?: unknown } | undefined)?.timestamp;
  return typeof t === "number" ? t : NaN;
};

/** Finds each reply's calls where the last pass had them. */
export class ReplyTable {
  /** the last complete pass's replies, and the one under way */
  private last = EMPTY;
  private current = EMPTY;
  /** the next row of `last` a pass expects */
  private at = 0;
  /** first row of `last` per timestamp, built only when a pass loses its place */
  private byTime: Map<number, number> | null = null;
  /** the latest row's timestamp (`append` adds after it) */
  private newest = -Infinity;

  constructor(private readonly sizes: CallSizes) {}

  bytes(): number {
    return 64 + this.last.bytes() + this.current.bytes();
  }

  begin(): void {
    this.current = new CallTable(this.last.rows + 8, this.last.calls + 8);
    this.at = 0;
    this.byTime = null;
  }

  end(): void {
    this.last = this.current.trimmed();
    this.current = EMPTY;
    this.byTime = null;
    this.newest = -Infinity;
    const ts = this.last.ts;
    for (let i = 0; i < this.last.rows; i++) if (ts[i]! > this.newest) this.newest = ts[i]!;
  }

  /** The chars of a reply's tool calls, within a pass, in order. */
  ofReply(timestamp: unknown, blocks: readonly CallBlock[]): number {
    const ts = typeof timestamp === "number" ? timestamp : NaN;
    const row = this.rowAt(ts);
    const last = this.last;
    const k = row < 0 ? 0 : last.start[row]!;
    return this.current.addRow(ts, blocks, last, k, row < 0 ? 0 : last.start[row + 1]!, this.sizes);
  }

  /** Sizes the replies newer than the newest row, off the request path: O(new messages). The calls sized. */
  append(messages: readonly AgentMessage[]): number {
    let from = messages.length;
    while (from > 0 && (callsOf(messages[from - 1]) === null || stampOf(messages[from - 1]) > this.newest)) from--;
    if (from === messages.length) return 0;
    // appended to a copy: `last` stays whole until it is done
    const t = this.last.trimmed();
    const before = this.sizes.stringified;
    for (let i = from; i < messages.length; i++) {
      const blocks = callsOf(messages[i]);
      if (blocks === null) continue;
      t.addRow(stampOf(messages[i]), blocks, EMPTY, 0, 0, this.sizes);
      this.newest = Math.max(this.newest, stampOf(messages[i]));
    }
    this.last = t.trimmed();
    return this.sizes.stringified - before;
  }

  /** The last pass's row for the reply at `ts` (-1: none): next in order, a few on, or by time. */
  private rowAt(ts: number): number {
    const last = this.last;
    for (let i = this.at; i < last.rows && i < this.at + LOOKAHEAD; i++) {
      if (last.ts[i] !== ts) continue;
      this.at = i + 1;
      return i;
    }
    if (this.at >= last.rows) return -1; // a new reply after the last known one
    if (this.byTime === null) {
      this.byTime = new Map();
      for (let i = last.rows - 1; i >= 0; i--) this.byTime.set(last.ts[i]!, i);
    }
    const i = this.byTime.get(ts);
    if (i === undefined) return -1; // a new reply: the place in the last pass stays
    this.at = i + 1;
    return i;
  }
}

/** A session's call sizes: of the messages sent (`main`) and of the unaged replies aging swapped. */
export class CallSizes {
  readonly main = new ReplyTable(this);
  readonly aged = new ReplyTable(this);
  /** calls stringified so far (tests, bench) */
  stringified = 0;

  /** Bytes held (cache budget): the arrays, ~1 KB for the objects around them. */
  approxBytes(): number {
    return 1024 + this.main.bytes() + this.aged.bytes();
  }

  size(b: CallBlock): number {
    this.stringified++;
    return toolCallChars(b);
  }
}
