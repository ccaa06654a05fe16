/**
 * Keys and units of the history, kept across requests so a request costs O(new messages): between
 * compactions pi only appends, so the last request's messages (less trailing custom ones) are
 * checked at both ends in O(1) and reused. Anything else rebuilds the view, in slices via `end`.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { baseKeyOf, callIdsOf } from "../messages/message-key.js";

/** The units smart trim drops: a message alone, or an assistant message with its calls' results
 * (providers reject a call without its result and a result without its call). */
export interface Units {
  unitOf: ArrayLike<number>;
  /** message indexes of each unit, ascending */
  members: number[][];
}

export class HistoryView {
  /** the keys of the messages the view holds */
  keys: string[] = [];
  private bases: string[] = [];
  private unitOf: number[] = [];
  private members: number[][] = [];
  private readonly counts = new Map<string, number>();
  private readonly callUnit = new Map<string, number>();
  /** what was added for the trailing custom messages of the last request (undone next time) */
  private stable = 0;
  /** the view was rebuilt from scratch by the last update (tests, bench) */
  rebuilt = false;

  /** About what the view holds, in bytes (keys, bases, units and the maps beside them). */
  approxBytes(): number {
    return this.keys.length * 240 + this.callUnit.size * 120;
  }

  /** Keys (a repeated base key numbered "#n") and units; `from`/`unitsFrom`: where the reused part ends. */
  update(messages: readonly AgentMessage[], end = messages.length): { keys: readonly string[]; units: Units; from: number; unitsFrom: number } {
    this.rebuilt = this.known(messages) === 0;
    if (this.rebuilt) {
      this.keys = [];
      this.bases = [];
      this.unitOf = [];
      this.members = [];
      this.counts.clear();
      this.callUnit.clear();
    } else {
      // undo the trailing custom messages (no calls, singleton units)
      for (let i = this.keys.length - 1; i >= this.stable; i--) {
        const base = this.bases[i]!;
        const c = (this.counts.get(base) ?? 1) - 1;
        if (c > 0) this.counts.set(base, c);
        else this.counts.delete(base);
        const u = this.unitOf[i]!;
        const list = this.members[u]!;
        list.pop();
        if (list.length === 0) this.members.length = u;
      }
      this.keys.length = this.stable;
      this.bases.length = this.stable;
      this.unitOf.length = this.stable;
    }
    const from = this.keys.length;
    const unitsFrom = this.members.length;
    for (let i = this.keys.length; i < end; i++) this.push(messages[i]!, i);
    let s = end;
    while (s > 0 && messages[s - 1]?.role === "custom") s--;
    this.stable = s;
    return { keys: this.keys, units: { unitOf: this.unitOf, members: this.members }, from, unitsFrom };
  }

  /** How many leading messages of `messages` the view holds already (0: it would be rebuilt). O(1). */
  known(messages: readonly AgentMessage[]): number {
    const s = this.stable;
    if (s === 0 || messages.length < s || baseKeyOf(messages[0]!) !== this.bases[0]) return 0;
    return baseKeyOf(messages[s - 1]!) === this.bases[s - 1] ? s : 0;
  }

  private push(m: AgentMessage, i: number): void {
    const base = baseKeyOf(m);
    const c = (this.counts.get(base) ?? 0) + 1;
    this.counts.set(base, c);
    this.bases.push(base);
    this.keys.push(c === 1 ? base : `${base}#${c}`);
    if (m?.role === "toolResult") {
      const id = (m as { toolCallId?: unknown }).toolCallId;
      const u = typeof id === "string" ? this.callUnit.get(id) : undefined;
      if (u !== undefined) {
        this.unitOf.push(u);
        this.members[u]!.push(i);
        return;
      }
    }
    const u = this.members.length;
    this.members.push([i]);
    this.unitOf.push(u);
    if (m?.role === "assistant") for (const id of callIdsOf(m)) this.callUnit.set(id, u);
  }
}
