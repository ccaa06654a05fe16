/**
 * The knowledge layer on replay (docs/archive.md#knowledge-layer): the records the run's
 * checkpoints produced (by kind, superseded), and for the recall queries of recall.ts (the
 * counted ones: user requests after a compaction naming an identifier only the archive holds)
 * whether a relevant knowledge record (its text or subject holds the identifier) is in the
 * top 5 of the knowledge search, a relevant detail segment in the top 5 of the archive search
 * (recall.ts's rank), or either.
 */
import { readKnowledge } from "../agents/archive/knowledge-store.js";
import { knowledgeIndex, searchKnowledge } from "../agents/archive/knowledge-search.js";
import { NEXT_TURNS, type RecallReport } from "./recall.js";

export interface KnowledgeReport {
  records: number;
  superseded: number;
  byKind: Record<string, number>;
  queries: number;
  /** share of queries with a relevant knowledge record in the knowledge top 5 */
  at5Knowledge: number | null;
  /** share with a relevant detail segment in the archive top 5 (recall.at5) */
  at5Detail: number | null;
  /** share with either */
  at5Either: number | null;
}

const share = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 1000) / 1000 : null);

export async function measureKnowledge(file: string, recall: RecallReport | null, queryTexts: ReadonlyMap<string, string>): Promise<KnowledgeReport> {
  const entries = await readKnowledge(file);
  const byKind: Record<string, number> = {};
  for (const e of entries) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
  const loaded = await knowledgeIndex(file);
  let k = 0;
  let d = 0;
  let either = 0;
  const queries = (recall?.detail ?? []).filter((q) => q.turn < NEXT_TURNS);
  for (const q of queries) {
    const text = queryTexts.get(q.query) ?? q.query;
    const hits = searchKnowledge(loaded, text, 5);
    const kHit = hits.some((h) => q.identifiers.some((id) => h.entry.text.includes(id) || h.entry.subject.includes(id)));
    const dHit = q.rank !== null && q.rank <= 5;
    if (kHit) k++;
    if (dHit) d++;
    if (kHit || dHit) either++;
  }
  return {
    records: entries.length,
    superseded: entries.filter((e) => e.supersededBy).length,
    byKind,
    queries: queries.length,
    at5Knowledge: share(k, queries.length),
    at5Detail: share(d, queries.length),
    at5Either: share(either, queries.length),
  };
}
