/**
 * Tool call chars remembered between a session's breakdowns. Requests get fresh copies and a lookup
 * by id cost more than the rest of the breakdown, so a pass finds each reply's calls where the last
 * pass had them and reuses a size while argsShape matches: 12 bytes per reply, 8 per call (docs/benchmarks.md).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { argsShape, type CallBlock, toolCallChars } from "../messages/argument-chars.js";

/** Rows a pass looks ahead for a reply before it looks the reply up by time. */
const LOOKAHEAD = 8;

/** One pass's replies with calls, as parallel arrays: row r's calls are start[r] .. start[r + 1] - 1. */
interface Table {
  ts: Float64Array;
  start: Int32Array;
  shapes: Int32Array;
  chars: Int32Array;
  /** the latest row's timestamp (`append` adds after it) */
  newest: number;
}

/** A table under way, in plain arrays (typed once done: no growth code). */
class Builder {
  ts: number[];
  start: number[];
  shapes: number[];
  chars: number[];

  constructor(from: Record<"ts" | "start" | "shapes" | "chars", ArrayLike<number>>) {
    this.ts = Array.from(from.ts);
    this.start = Array.from(from.start);
    this.shapes = Array.from(from.shapes);
    this.chars = Array.from(from.chars);
  }

  done(): Table {
    const { ts, start, shapes, chars } = this;
    let newest = -Infinity;
    for (const t of ts) if (t > newest) newest = t;
    const table = { ts: Float64Array.from(ts), start: Int32Array.from(start), shapes: Int32Array.from(shapes) };
    return { ...table, chars: Int32Array.from(chars), newest };
  }
}

const EMPTY: Table = new Builder({ ts: [], start: [0], shapes: [], chars: [] }).done();

/** The reply's blocks when it has tool calls, else null. */
function callBlocks(m: AgentMessage | undefined): CallBlock[] | null {
  const c = (m as { content?: unknown } | undefined)?.content;
  if (m?.role !== "assistant" || !Array.isArray(c)) return null;
  return c.some((b: CallBlock) => b?.type === "toolCall") ? c : null;
}

/** Finds each reply's calls where the last pass had them. */
export class ReplyTable {
  /** the last complete pass's replies, and the one under way */
  private last = EMPTY;
  private current: Builder | null = null;
  /** the next row of `last` a pass expects */
  private at = 0;
  /** first row of `last` per timestamp, built only when a pass loses its place */
  private byTime: Map<number, number> | null = null;

  constructor(private readonly sizes: CallSizes) {}

  bytes(): number {
    const t = this.last;
    const c = this.current;
    const held = t.ts.byteLength + t.start.byteLength + t.shapes.byteLength + t.chars.byteLength;
    return 64 + held + (c ? c.ts.length * 12 + c.shapes.length * 8 : 0);
  }

  begin(): void {
    this.current = new Builder(EMPTY);
    this.at = 0;
    this.byTime = null;
  }

  end(): void {
    this.last = this.current?.done() ?? EMPTY;
    this.current = null;
    this.byTime = null;
  }

  /** The chars of a reply's tool calls, within a pass, in order. */
  ofReply(timestamp: unknown, blocks: readonly CallBlock[]): number {
    const ts = typeof timestamp === "number" ? timestamp : NaN;
    const row = this.rowAt(ts);
    const { start, shapes, chars: known } = this.last;
    let k = row < 0 ? 0 : start[row]!;
    const end = row < 0 ? 0 : start[row + 1]!;
    const cur = this.current!;
    cur.ts.push(ts);
    let total = 0;
    for (const b of blocks) {
      if (b?.type !== "toolCall") continue;
      const shape = argsShape(b);
      const chars = k < end && shapes[k] === shape ? known[k]! : this.sizes.size(b);
      k++;
      cur.shapes.push(shape);
      cur.chars.push(chars);
      total += chars;
    }
    cur.start.push(cur.shapes.length);
    return total;
  }

  /** Sizes the replies newer than the newest row, off the request path: O(new messages). The calls sized. */
  append(messages: readonly AgentMessage[]): number {
    const newest = this.last.newest;
    let from = messages.length;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (!callBlocks(messages[i])) continue;
      const t = messages[i]!.timestamp;
      if (typeof t !== "number" || t <= newest) break;
      from = i;
    }
    if (from === messages.length) return 0;
    // built on a copy: `last` stays whole until it is done
    const b = new Builder(this.last);
    let sized = 0;
    for (let i = from; i < messages.length; i++) {
      const blocks = callBlocks(messages[i]);
      const t = messages[i]!.timestamp;
      if (!blocks || typeof t !== "number") continue;
      b.ts.push(t);
      for (const c of blocks) {
        if (c?.type !== "toolCall") continue;
        b.shapes.push(argsShape(c));
        b.chars.push(this.sizes.size(c));
        sized++;
      }
      b.start.push(b.shapes.length);
    }
    this.last = b.done();
    return sized;
  }

  /** The last pass's row for the reply at `ts` (-1: none): next in order, a few on, or by time. */
  private rowAt(ts: number): number {
    const rows = this.last.ts;
    for (let i = this.at; i < rows.length && i < this.at + LOOKAHEAD; i++) {
      if (rows[i] !== ts) continue;
      this.at = i + 1;
      return i;
    }
    if (this.at >= rows.length) return -1; // a new reply after the last known one
    if (this.byTime === null) {
      this.byTime = new Map();
      for (let i = rows.length - 1; i >= 0; i--) this.byTime.set(rows[i]!, i);
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
