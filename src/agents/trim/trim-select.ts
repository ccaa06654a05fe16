/**
 * Smart trim's sticky set and decision, kept per message index across requests (the full pass's
 * choice: test/trim/trim-reference.ts). Layer 2 drops unmatched units oldest first, then matched
 * ones lowest score first; Layer 3 the ones not indexed yet; a unit goes whole, until `need` tokens.
 * Every unit before `frontier` is trimmed, fixed or in `kept`: a decision costs O(kept + walked).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Units } from "./history-view.js";
import { grown } from "../archive/arrays.js";

export interface SelectInput {
  messages: readonly AgentMessage[];
  units: Units;
  keepRecent: number;
  /** indexes of the query's user requests */
  requestAt: ReadonlySet<number>;
  /** tokens of the message at an index (asked only for what is dropped) */
  tokensAt: (i: number) => number;
  /** relevance of the message at an index to the query (0: none; null: not scored yet) */
  scoreAt: (i: number) => number | null;
  need: number;
}

export interface Selection {
  /** message indexes newly dropped, ascending */
  drop: number[];
  tokens: number;
  /** units dropped by Layer 2 / Layer 3 */
  layer2: number;
  layer3: number;
}

/** What a unit is to a decision: out of it for good, protected by this request, or a candidate. */
const GONE = 0;
const PROTECTED = 1;
const CANDIDATE = 2;

export class TrimSelect {
  private trimmedAt = new Uint8Array(64);
  private fixedAt = new Uint8Array(64);
  private length = 0;
  /** messages trimmed (sticky), in the current history */
  count = 0;
  private frontier = 0;
  private kept: number[] = [];

  /** Forgets everything (the history was rebuilt: a compaction, a branch switch). */
  reset(): void {
    this.trimmedAt.fill(0, 0, this.length);
    this.fixedAt.fill(0, 0, this.length);
    this.length = 0;
    this.count = 0;
    this.frontier = 0;
    this.kept = [];
  }

  isTrimmed(i: number): boolean {
    return this.trimmedAt[i] === 1;
  }

  /** Takes in the messages from `from` on (units before `unitsFrom` unchanged); a sticky key trims its whole unit. */
  sync(n: number, units: Units, from: number, unitsFrom: number, sticky: (i: number) => boolean, fixed: (i: number) => boolean): void {
    for (let i = from; i < this.length; i++) {
      if (this.trimmedAt[i]) this.count--;
      this.trimmedAt[i] = 0;
      this.fixedAt[i] = 0;
    }
    this.trimmedAt = grown(this.trimmedAt, n, this.length);
    this.fixedAt = grown(this.fixedAt, n, this.length);
    this.length = n;
    if (this.frontier > unitsFrom) this.frontier = unitsFrom;
    if (this.kept.length > 0 && this.kept.at(-1)! >= unitsFrom) this.kept = this.kept.filter((u) => u < unitsFrom);
    for (let i = from; i < n; i++) {
      this.fixedAt[i] = fixed(i) ? 1 : 0;
      const members = units.members[units.unitOf[i]!]!;
      if (sticky(i) || (members[0]! < i && this.trimmedAt[members[0]!])) for (const j of members) this.mark(j);
    }
  }

  /** Drops units until `need` tokens are dropped; marks them trimmed. */
  decide(p: SelectInput): Selection {
    const out: Selection = { drop: [], tokens: 0, layer2: 0, layer3: 0 };
    if (!(p.need > 0)) return out;
    const { members } = p.units;
    // the first of the last `keepRecent` user/assistant messages (n: none)
    let recentStart = p.messages.length;
    for (let i = p.messages.length - 1, seen = 0; i >= 0 && seen < p.keepRecent; i--) {
      const role = p.messages[i]?.role;
      if (role === "user" || role === "assistant") {
        seen++;
        recentStart = i;
      }
    }
    // the unit of the latest tool call (a result, or an assistant message with results), -1: none
    let lastCall = -1;
    for (let i = p.messages.length - 1; i >= 0 && lastCall < 0; i--) {
      const role = p.messages[i]?.role;
      const u = p.units.unitOf[i]!;
      if (role === "toolResult" || (role === "assistant" && members[u]!.length > 1)) lastCall = u;
    }
    const status = (u: number): number => {
      const ms = members[u]!;
      let protect = u === lastCall && ms.length > 1;
      for (const i of ms) {
        if (this.trimmedAt[i] || this.fixedAt[i]) return GONE;
        if (i >= recentStart || p.requestAt.has(i)) protect = true;
      }
      return protect ? PROTECTED : CANDIDATE;
    };
    const drop = (u: number, layer: "layer2" | "layer3"): void => {
      for (const i of members[u]!) {
        out.drop.push(i);
        out.tokens += p.tokensAt(i);
        this.mark(i);
      }
      out[layer]++;
    };
    const hits: Array<{ u: number; score: number }> = [];
    const unscored: number[] = [];
    const kept: number[] = [];
    const visit = (u: number): void => {
      const s = status(u);
      if (s === GONE) return;
      if (s === CANDIDATE) {
        let score = 0;
        let scored = true;
        for (const i of members[u]!) {
          const v = p.scoreAt(i);
          if (v === null) scored = false;
          else if (v > score) score = v;
        }
        if (scored && score === 0) return drop(u, "layer2");
        if (scored) hits.push({ u, score });
        else unscored.push(u);
      }
      kept.push(u);
    };
    for (const u of this.kept) {
      if (out.tokens >= p.need) kept.push(u);
      else visit(u);
    }
    let u = this.frontier;
    for (; out.tokens < p.need && u < members.length && members[u]![0]! < recentStart; u++) visit(u);
    this.frontier = u;
    if (out.tokens < p.need) {
      // every score-0 candidate is gone: the matched ones, lowest score first, then the unscored
      hits.sort((a, b) => a.score - b.score || a.u - b.u);
      for (let k = 0; k < hits.length && out.tokens < p.need; k++) drop(hits[k]!.u, "layer2");
      for (let k = 0; k < unscored.length && out.tokens < p.need; k++) drop(unscored[k]!, "layer3");
    }
    this.kept = kept.filter((x) => !this.trimmedAt[members[x]![0]!]);
    out.drop.sort((a, b) => a - b);
    return out;
  }

  /** Takes back a decision not taken (the prompt cache's price said no): its units are candidates again. */
  undo(drop: readonly number[], units: Units): void {
    const back = new Set<number>();
    for (const i of drop) {
      if (!this.trimmedAt[i]) continue;
      this.trimmedAt[i] = 0;
      this.count--;
      back.add(units.unitOf[i]!);
    }
    this.kept = [...new Set([...this.kept, ...back])].sort((a, b) => a - b);
  }

  private mark(i: number): void {
    if (this.trimmedAt[i]) return;
    this.trimmedAt[i] = 1;
    this.count++;
  }
}
