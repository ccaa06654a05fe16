/**
 * The full-pass reference of smart trim's decision, over the whole history at once: Layer 1
 * (protectedIndexes), the units (unitsOf) and Layers 2 and 3 (planTrim). SmartTrim decides
 * incrementally (trim-select.ts, history-view.ts); the property tests hold it equal to this.
 *   Layer 2: units the relevance index scored against the query, lowest score first (ties,
 *            most of them at 0: oldest first);
 *   Layer 3: if that is not enough, the units it could not score yet, oldest first.
 * Stops as soon as the dropped tokens reach `need`. Units already trimmed stay trimmed and
 * are not counted again.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { callIdsOf } from "../../src/agents/messages/message-key.js";
import { fixedByRole } from "../../src/agents/trim/smart-trim.js";
import type { Units } from "../../src/agents/trim/history-view.js";

export interface ProtectInput {
  messages: readonly AgentMessage[];
  units: Units;
  keepRecent: number;
  /** indexes of the query's user requests */
  requestAt: ReadonlySet<number>;
  /** the message at index i carries one of our blocks (cached per message by the caller) */
  carriesOurBlock: (i: number) => boolean;
}

export function protectedIndexes(p: ProtectInput): Uint8Array {
  const n = p.messages.length;
  const out = new Uint8Array(n);
  let recentStart = n;
  for (let i = n - 1, seen = 0; i >= 0 && seen < p.keepRecent; i--) {
    const role = p.messages[i]?.role;
    if (role === "user" || role === "assistant") {
      seen++;
      recentStart = i;
    }
  }
  let lastCallUnit = -1;
  for (let i = n - 1; i >= 0; i--) {
    const m = p.messages[i];
    if (m?.role === "toolResult" || (m?.role === "assistant" && p.units.members[p.units.unitOf[i]!]!.length > 1)) {
      lastCallUnit = p.units.unitOf[i]!;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const m = p.messages[i];
    if (i >= recentStart || p.requestAt.has(i) || fixedByRole(m, p.carriesOurBlock(i))) out[i] = 1;
  }
  // a protected member protects its whole unit (a call and its results stay or go together)
  for (let u = 0; u < p.units.members.length; u++) {
    const members = p.units.members[u]!;
    if (members.length < 2) continue;
    if (u === lastCallUnit || members.some((i) => out[i])) for (const i of members) out[i] = 1;
  }
  return out;
}

export function unitsOf(messages: readonly AgentMessage[]): Units {
  const unitOf = new Int32Array(messages.length);
  const members: number[][] = [];
  const callUnit = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m?.role === "toolResult") {
      const id = (m as { toolCallId?: unknown }).toolCallId;
      const u = typeof id === "string" ? callUnit.get(id) : undefined;
      if (u !== undefined) {
        unitOf[i] = u;
        members[u]!.push(i);
        continue;
      }
    }
    const u = members.length;
    members.push([i]);
    unitOf[i] = u;
    if (m?.role === "assistant") for (const id of callIdsOf(m)) callUnit.set(id, u);
  }
  return { unitOf, members };
}

export interface TrimPlanInput {
  units: Units;
  /** per message index */
  protectedAt: ArrayLike<number>;
  /** per message index: already trimmed (sticky) */
  trimmedAt: ArrayLike<number>;
  /** tokens of the message at an index */
  tokensAt: (i: number) => number;
  /** relevance of the message at an index to the query (0: none; null: not scored yet) */
  scoreAt: (i: number) => number | null;
  /** tokens to drop */
  need: number;
}

export interface TrimPlan {
  /** message indexes newly dropped, ascending */
  drop: number[];
  tokens: number;
  /** units dropped by Layer 2 / Layer 3 */
  layer2: number;
  layer3: number;
}

interface Candidate {
  unit: number;
  first: number;
  score: number;
}

export function planTrim(p: TrimPlanInput): TrimPlan {
  const empty: TrimPlan = { drop: [], tokens: 0, layer2: 0, layer3: 0 };
  if (!(p.need > 0)) return empty;
  const ranked: Candidate[] = [];
  const unscored: Candidate[] = [];
  for (const [unit, members] of p.units.members.entries()) {
    let blocked = false;
    let score = 0;
    let scored = true;
    for (const i of members) {
      if (p.protectedAt[i] || p.trimmedAt[i]) {
        blocked = true;
        break;
      }
      const s = p.scoreAt(i);
      if (s === null) scored = false;
      else score = Math.max(score, s);
    }
    if (blocked) continue;
    const c = { unit, first: members[0]!, score };
    (scored ? ranked : unscored).push(c);
  }
  ranked.sort((a, b) => a.score - b.score || a.first - b.first);
  unscored.sort((a, b) => a.first - b.first);
  const out: TrimPlan = { ...empty, drop: [] };
  for (const [layer, list] of [[2, ranked], [3, unscored]] as const) {
    for (const c of list) {
      if (out.tokens >= p.need) break;
      // tokens are estimated only for what is dropped (reading every candidate's text costs)
      for (const i of p.units.members[c.unit]!) {
        out.drop.push(i);
        out.tokens += p.tokensAt(i);
      }
      if (layer === 2) out.layer2++;
      else out.layer3++;
    }
  }
  out.drop.sort((a, b) => a - b);
  return out;
}
