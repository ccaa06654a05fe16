/**
 * Tool call chars remembered between a session's breakdowns. Requests get fresh copies and a lookup
 * by id cost more than the rest of the breakdown, so a pass finds each reply's calls where the last
 * pass had them and reuses a size while argsShape matches: 12 bytes per reply, 8 per call (docs/benchmarks.md).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { argsShape, type CallBlock, toolCallChars } from "../messages/argument-chars.js";

/** Rows a pass looks ahead for a reply before it looks the reply up by time. */
const LOOKAHEAD = 8;

/** One pass's replies with calls, as parallel arrays (no object per row). */
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

  beginRow(ts: number): void {
    if (this.rows >= this.ts.length) {
      const n = Math.max(16, this.ts.length * 2);
      this.ts = grown(this.ts, new Float64Array(n));
      this.start = grown(this.start, new Int32Array(n + 1));
    }
    this.ts[this.rows] = ts;
    this.start[this.rows] = this.calls;
  }

  addCall(shape: number, chars: number): void {
    if (this.calls >= this.shapes.length) {
      const n = Math.max(16, this.shapes.length * 2);
      this.shapes = grown(this.shapes, new Int32Array(n));
      this.chars = grown(this.chars, new Int32Array(n));
    }
    this.shapes[this.calls] = shape;
    this.chars[this.calls] = chars;
    this.calls++;
  }

  endRow(): void {
    this.rows++;
    this.start[this.rows] = this.calls;
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

function grown<T extends Float64Array | Int32Array>(a: T, into: T): T {
  into.set(a);
  return into;
}

const EMPTY = new CallTable();

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
    let k = row < 0 ? 0 : last.start[row]!;
    const end = row < 0 ? 0 : last.start[row + 1]!;
    const cur = this.current;
    cur.beginRow(ts);
    let total = 0;
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b?.type !== "toolCall") continue;
      const shape = argsShape(b);
      const chars = k < end && last.shapes[k] === shape ? last.chars[k]! : this.sizes.size(b);
      k++;
      cur.addCall(shape, chars);
      total += chars;
    }
    cur.endRow();
    return total;
  }

  /** Sizes the replies newer than the newest row, off the request path: O(new messages). The calls sized. */
  append(messages: readonly AgentMessage[]): number {
    let from = messages.length;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as { role?: string; content?: unknown; timestamp?: unknown };
      if (m?.role !== "assistant" || !Array.isArray(m.content) || !(m.content as CallBlock[]).some((b) => b?.type === "toolCall")) continue;
      if (typeof m.timestamp !== "number" || m.timestamp <= this.newest) break;
      from = i;
    }
    if (from === messages.length) return 0;
    // appended to a copy: `last` stays whole until it is done
    const t = this.last.trimmed();
    let sized = 0;
    for (let i = from; i < messages.length; i++) {
      const m = messages[i] as { role?: string; content?: unknown; timestamp?: unknown };
      if (m?.role !== "assistant" || !Array.isArray(m.content) || typeof m.timestamp !== "number") continue;
      const blocks = m.content as CallBlock[];
      if (!blocks.some((b) => b?.type === "toolCall")) continue;
      t.beginRow(m.timestamp);
      for (const b of blocks) {
        if (b?.type !== "toolCall") continue;
        t.addCall(argsShape(b), this.sizes.size(b));
        sized++;
      }
      t.endRow();
      if (m.timestamp > this.newest) this.newest = m.timestamp;
    }
    this.last = t.trimmed();
    return sized;
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
