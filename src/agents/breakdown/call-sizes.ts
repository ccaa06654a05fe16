/**
 * Chars of tool calls (name + JSON of the arguments, as pi counts them), remembered between the
 * breakdowns of one session so each call is stringified once. Each request hands the breakdown
 * fresh copies of its messages (pi structuredClones them), so nothing is found by object
 * identity, and looking every call of the history up by id again (a hash of each fresh id, a
 * compare with the id string kept, long out of the cache) cost more than the rest of the
 * breakdown. So a pass over a request finds each reply's calls where the last pass had them (the
 * same timestamp at the next row, or a few rows on, or by timestamp when the history moved) in
 * one table of parallel typed arrays, and takes a call's size there when its shape (argsShape:
 * what its size depends on; the id is not counted) matches; any other call is stringified.
 * No id is kept: a key's sizes weigh 12 bytes per reply and 8 per call (issue 27: a few hundred
 * keys fit the budget), and the calls a request adds are appended to the table after it
 * (`warm`), so the next pass finds them in order.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { argsShape, type CallBlock, toolCallChars } from "../messages/argument-chars.js";

/** Rows a pass looks ahead for a reply before it looks the reply up by time. */
const LOOKAHEAD = 8;

/** One pass's replies with calls, as parallel arrays: read back in order, no object per row. */
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

  /** Bytes its arrays hold. */
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

  /** This table with its arrays cut to what it holds (what is kept between passes). */
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

/** `into` (larger) holding `a`'s values. */
function grown<T extends Float64Array | Int32Array>(a: T, into: T): T {
  into.set(a);
  return into;
}

const EMPTY = new CallTable();

/** Finds each reply's calls where the last pass over requests of the session had them. */
export class ReplyTable {
  /** the last complete pass's replies, and the one under way (only during a pass) */
  private last = EMPTY;
  private current = EMPTY;
  /** the next row of `last` a pass expects */
  private at = 0;
  /** first row of `last` per timestamp, built only when a pass loses its place */
  private byTime: Map<number, number> | null = null;
  /** the latest timestamp of a row (what `warm` appends after) */
  private newest = -Infinity;

  constructor(private readonly sizes: CallSizes) {}

  /** Bytes held between passes. */
  bytes(): number {
    return 64 + this.last.bytes() + this.current.bytes();
  }

  get rows(): number {
    return this.last.rows;
  }

  get calls(): number {
    return this.last.calls;
  }

  /** A pass over one request's messages, in order, begins. */
  begin(): void {
    this.current = new CallTable(this.last.rows + 8, this.last.calls + 8);
    this.at = 0;
    this.byTime = null;
  }

  /** The pass is complete: the next one finds its replies where this one had them. */
  end(): void {
    this.last = this.current.trimmed();
    this.current = EMPTY;
    this.byTime = null;
    this.newest = -Infinity;
    const ts = this.last.ts;
    for (let i = 0; i < this.last.rows; i++) if (ts[i]! > this.newest) this.newest = ts[i]!;
  }

  /** The chars of a reply's tool calls, within a pass (between begin and end), in order. */
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

  /**
   * Appends the replies a request added (after the newest row; found from the end back) with
   * their calls sized, so the next pass finds them in order: O(new messages). Returns the calls sized.
   */
  append(messages: readonly AgentMessage[]): number {
    let from = messages.length;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as { role?: string; content?: unknown; timestamp?: unknown };
      if (m?.role !== "assistant" || !Array.isArray(m.content) || !(m.content as CallBlock[]).some((b) => b?.type === "toolCall")) continue;
      if (typeof m.timestamp !== "number" || m.timestamp <= this.newest) break;
      from = i;
    }
    if (from === messages.length) return 0;
    // appended to a copy (grown as rows come): `last` stays as the pass left it until the copy is whole
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

  /** The row of the last pass for the reply at `ts` (-1: none): the next in order, a few on, or the first of that time. */
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

/**
 * A session's call sizes: the replies of the messages sent (`main`), and the unaged replies
 * aged offload swapped (`aged`: what aging took out is their size less their stand-in's), each
 * found by position across requests.
 */
export class CallSizes {
  readonly main = new ReplyTable(this);
  readonly aged = new ReplyTable(this);
  /** calls stringified so far (tests, bench: a pass over unchanged copies adds none) */
  stringified = 0;

  /** Estimated bytes held (cache budget): the tables' arrays, and ~1 KB for the eight typed arrays and the objects around them. */
  approxBytes(): number {
    return 1024 + this.main.bytes() + this.aged.bytes();
  }

  /** A call stringified (counted). */
  size(b: CallBlock): number {
    this.stringified++;
    return toolCallChars(b);
  }

  /**
   * Sizes the calls a request added (after the newest known reply): O(new messages) per
   * request once the history is known (the first request of a resumed session sizes its whole
   * history, once). Run after a request, off its path, so a breakdown finds every call sized.
   * Returns the calls sized.
   */
  warm(messages: readonly AgentMessage[]): number {
    return this.main.append(messages);
  }
}
