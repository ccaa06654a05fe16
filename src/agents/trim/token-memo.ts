/**
 * pi's `estimateTokens` of what a decision drops, its costly part (the JSON of the tool calls'
 * arguments: 90% of its time on the bench's 2,000 messages) measured off the request path, per
 * message key, and reused while the arguments keep their shape (argument-chars.ts argsShape).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { messageTokens } from "../gauge/context-gauge.js";
import { argsShape, type CallBlock, strictCallChars } from "../messages/argument-chars.js";
import { grown } from "../archive/arrays.js";

/** Heap per remembered message (its key's entry and the numbers). */
export const BYTES_PER_MEMO = 120;

/** An assistant message's tool calls: their shape, and the chars pi counts for them (name + JSON of the arguments). */
interface Calls {
  shape: number;
  chars: number;
}

/** Shape of the tool calls (argsShape of each); NaN: none, or a call without a name or id. */
function callsShape(content: readonly CallBlock[]): number {
  let h = NaN;
  for (const b of content) {
    if (b?.type !== "toolCall") continue;
    if (typeof b.name !== "string" || typeof b.id !== "string") return NaN;
    h = (Math.imul(Number.isNaN(h) ? 17 : h, 31) + argsShape(b)) | 0;
  }
  return h;
}

export class TokenMemo {
  private readonly byKey = new Map<string, Calls>();

  get size(): number {
    return this.byKey.size;
  }

  /** Measures a message's tool calls now (off the request path) so a later decision reuses them. */
  remember(key: string, m: AgentMessage): Calls | undefined {
    const content = (m as { content?: unknown }).content;
    if (m?.role !== "assistant" || !Array.isArray(content)) return undefined;
    const shape = callsShape(content);
    const known = this.byKey.get(key);
    if (known?.shape === shape) return known;
    this.byKey.delete(key);
    if (Number.isNaN(shape)) return undefined;
    let chars = 0;
    for (const b of content as CallBlock[]) {
      const n = b?.type === "toolCall" ? strictCallChars(b) : 0;
      if (n === null) return undefined; // not countable: pi's own estimate
      chars += n;
    }
    const calls = { shape, chars };
    this.byKey.set(key, calls);
    return calls;
  }

  /** estimateTokens(m), the tool calls' JSON length reused while their shape holds. */
  tokensOf(key: string, m: AgentMessage): number {
    return messageTokens(m, this.remember(key, m)?.chars);
  }

  forget(keys: Iterable<string>): void {
    for (const k of keys) this.byKey.delete(k);
  }
}

/**
 * Token estimates of a long history read in slices (SmartTrim.catchUp), per index, for the request
 * that reads it: its decision sums a typed array instead of reading ~1,500 dropped messages on the
 * request path (memory latency: 7x their in-cache cost). Released after that decision.
 */
export class CatchUpTokens {
  private of: readonly AgentMessage[] | null = null;
  /** the indexes [from, to) of `of` estimated */
  private from = 0;
  private to = 0;
  private values = new Float64Array(64);

  /** Estimates will be kept for `messages` (a catch-up starts). */
  begin(messages: readonly AgentMessage[]): void {
    this.of = messages;
    this.from = 0;
    this.to = 0;
  }

  /** Estimates the messages [from, end) when `messages` is the array being caught up. */
  read(messages: readonly AgentMessage[], from: number, end: number, tokensAt: (i: number) => number): void {
    if (messages !== this.of || end <= from) return;
    if (from < this.from || from > this.to) this.from = from; // not contiguous: keep only this run
    this.values = grown(this.values, end, this.to);
    for (let i = from; i < end; i++) this.values[i] = tokensAt(i);
    this.to = end;
  }

  /** The estimate of index `i` of `messages`, read during this catch-up; undefined: not read. */
  get(messages: readonly AgentMessage[], i: number): number | undefined {
    return messages === this.of && i >= this.from && i < this.to ? this.values[i] : undefined;
  }

  /** Drops the array (its decision is made: nothing of it is held beyond its request). */
  clear(): void {
    this.of = null;
    this.from = 0;
    this.to = 0;
  }
}
