/**
 * Token estimates of a long history read in slices (SmartTrim.catchUp), kept per index for the
 * request that reads it: the decision that follows sums a typed array instead of reading ~1,500
 * dropped messages on the request path (memory latency: 7x their in-cache cost). Valid for that
 * array only and released after its decision (the next request's array is a fresh clone).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

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
    if (end > this.values.length) {
      let cap = this.values.length;
      while (cap < end) cap *= 2;
      const v = new Float64Array(cap);
      v.set(this.values.subarray(0, this.to));
      this.values = v;
    }
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
