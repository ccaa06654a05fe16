/**
 * Smart trim's decision (pure): which units to drop so a request fits.
 *   Layer 1: protected units are never dropped (the caller marks them: trim-protect.ts);
 *   Layer 2: units the relevance index scored against the query, lowest score first (ties,
 *            most of them at 0: oldest first);
 *   Layer 3: if that is not enough, the units it could not score yet (not indexed: the
 *            newest messages, indexed off the request path), oldest first.
 * Stops as soon as the dropped tokens reach `need`. Units already trimmed stay trimmed and
 * are not counted again.
 *
 * The full pass over the history: the reference that SmartTrim's incremental decision
 * (trim-select.ts) is held equal to by test/trim/trim-select.property.test.ts.
 */
import type { Units } from "./trim-units.js";

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
