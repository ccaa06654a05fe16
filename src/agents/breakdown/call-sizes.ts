/**
 * Chars of tool calls (name + JSON of the arguments, as pi counts them), remembered between the
 * breakdowns of one session so each call is stringified once. Each request hands the breakdown
 * fresh copies of its messages (pi structuredClones them for the `context` event), so nothing is
 * found by object identity, and looking every call of the history up by id again (a hash of each
 * fresh id, a compare with the id string kept, long out of the cache) cost more than the rest of
 * the breakdown. So a pass over a request finds each reply's calls where the last pass had them
 * (the same timestamp at the next row, or a few rows on, or by timestamp when the history moved)
 * in parallel typed arrays, and takes a call's size there when its shape (argsShape: what its
 * size depends on; the id is not counted) matches; any other call is looked up by id (shape
 * checked), then stringified.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { argumentsJsonLength } from "../messages/argument-chars.js";

export type CallBlock = { type?: string; id?: unknown; name?: unknown; arguments?: unknown };

/** Rows a pass looks ahead for a reply before it looks the reply up by time. */
const LOOKAHEAD = 8;

/** The chars of a tool call block, as pi counts them. */
export function toolCallChars(b: CallBlock): number {
  let args = 0;
  try {
    const value = b.arguments ?? {};
    // an object's JSON length as the gauge's estimate measured it (messages/argument-chars.ts)
    args = typeof value === "object" && value !== null ? argumentsJsonLength(value) : (JSON.stringify(value)?.length ?? 0);
  } catch {
    args = 0; // a cyclic or BigInt argument: pi would have failed on it first
  }
  return (typeof b.name === "string" ? b.name.length : 0) + args;
}

/** One pass's replies with calls, as parallel arrays: read back in order, no object per row. */
class CallTable {
  rows = 0;
  calls = 0;
  ts = new Float64Array(64);
  /** row r's calls are start[r] .. start[r + 1] - 1 */
  start = new Int32Array(65);
  shapes = new Int32Array(64);
  chars = new Float64Array(64);

  reset(): void {
    this.rows = 0;
    this.calls = 0;
  }

  beginRow(ts: number): void {
    if (this.rows + 1 >= this.ts.length) {
      this.ts = grown(this.ts, Float64Array);
      this.start = grown(this.start, Int32Array);
    }
    this.ts[this.rows] = ts;
    this.start[this.rows] = this.calls;
  }

  addCall(shape: number, chars: number): void {
    if (this.calls >= this.shapes.length) {
      this.shapes = grown(this.shapes, Int32Array);
      this.chars = grown(this.chars, Float64Array);
    }
    this.shapes[this.calls] = shape;
    this.chars[this.calls] = chars;
    this.calls++;
  }

  endRow(): void {
    this.rows++;
    this.start[this.rows] = this.calls;
  }
}

function grown<T extends Float64Array | Int32Array>(a: T, Ctor: new (n: number) => T): T {
  const out = new Ctor(a.length * 2);
  out.set(a);
  return out;
}

export class CallSizes {
  private readonly sizes = new Map<string, { chars: number; shape: number }>();
  /** the last complete pass's replies, and the one under way */
  private last = new CallTable();
  private current = new CallTable();
  /** the next row of `last` a pass expects */
  private at = 0;
  /** first row of `last` per timestamp, built only when a pass loses its place */
  private byTime: Map<number, number> | null = null;
  /** calls stringified so far (tests, bench: a pass over unchanged copies adds none) */
  stringified = 0;
  constructor(private readonly max = 50_000) {}

  /** Estimated bytes held (cache budget): an id, its entry and the two pass tables. */
  approxBytes(): number {
    return 512 + this.sizes.size * 128 + (this.last.ts.length + this.current.ts.length) * 12 + (this.last.shapes.length + this.current.shapes.length) * 12;
  }

  /** The chars of one call, by id when its shape is unchanged, else stringified. */
  of(b: CallBlock, shape = argsShape(b)): number {
    const id = typeof b.id === "string" ? b.id : null;
    const known = id === null ? undefined : this.sizes.get(id);
    if (known !== undefined && known.shape === shape) return known.chars;
    const chars = toolCallChars(b);
    this.stringified++;
    if (id !== null) {
      if (this.sizes.size >= this.max) this.sizes.clear();
      this.sizes.set(id, { chars, shape });
    }
    return chars;
  }

  /** A pass over one request's messages, in order, begins. */
  begin(): void {
    this.current.reset();
    this.at = 0;
    this.byTime = null;
  }

  /** The pass is complete: the next one finds its replies where this one had them. */
  end(): void {
    [this.last, this.current] = [this.current, this.last];
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
    for (const b of blocks) {
      if (b?.type !== "toolCall") continue;
      const shape = argsShape(b);
      const chars = k < end && last.shapes[k] === shape ? last.chars[k]! : this.of(b, shape);
      k++;
      cur.addCall(shape, chars);
      total += chars;
    }
    cur.endRow();
    return total;
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

  /**
   * Sizes the calls a request added, newest first, stopping at the first reply whose calls are
   * already known: O(new messages) per request once the history is known (the first request of
   * a resumed session sizes its whole history, once). Run after a request, off its path, so a
   * breakdown finds every call sized. Returns the calls sized.
   */
  warm(messages: readonly AgentMessage[]): number {
    let sized = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as { role?: string; content?: unknown };
      if (m?.role !== "assistant" || !Array.isArray(m.content)) continue;
      let known = false;
      for (const b of m.content as CallBlock[]) {
        if (b?.type !== "toolCall") continue;
        if (typeof b.id === "string" && this.sizes.has(b.id)) known = true;
        else {
          this.of(b);
          sized++;
        }
      }
      if (known) break;
    }
    return sized;
  }
}

/** Containers argsShape looks into, and how many of their entries. */
const SHAPE_DEPTH = 3;
const SHAPE_ENTRIES = 64;

/**
 * A cheap fingerprint of a call (its name's length; its arguments' keys, string lengths,
 * numbers and array lengths, three levels deep; no JSON, no text read), so a call whose
 * arguments were rewritten under the same id is stringified again rather than taken as known.
 * Blind to an edit that keeps every length (its JSON length can still differ by escapes).
 */
export function argsShape(b: CallBlock): number {
  return (Math.imul(typeof b.name === "string" ? b.name.length : 0, 31) + shapeOf(b.arguments, 0)) | 0;
}

function shapeOf(v: unknown, depth: number): number {
  if (typeof v === "string") return v.length * 8 + 1;
  if (typeof v === "number") return (v * 1000) | 0;
  if (v === null || typeof v !== "object") return v === true ? 3 : v === false ? 4 : 5;
  if (depth >= SHAPE_DEPTH) return 6;
  let h: number;
  if (Array.isArray(v)) {
    h = 7 + v.length;
    for (let i = 0; i < v.length && i < SHAPE_ENTRIES; i++) h = (Math.imul(h, 31) + shapeOf(v[i], depth + 1)) | 0;
  } else {
    h = 11;
    let n = 0;
    for (const k in v) {
      if (n++ >= SHAPE_ENTRIES) break;
      h = (Math.imul(h, 31) + k.length * 17 + shapeOf((v as Record<string, unknown>)[k], depth + 1)) | 0;
    }
  }
  return h;
}
