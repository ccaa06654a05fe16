/**
 * The knowledge layer on replay (docs/archive.md#knowledge-layer): the records the run's
 * checkpoints produced (by kind, superseded), and for the recall queries of recall.ts (the
 * counted ones: user requests after a compaction naming an identifier only the archive holds)
 * whether a relevant knowledge record is in the top 5 of the knowledge search, a relevant
 * detail segment in the top 5 of the archive search (recall.ts's rank), or either.
 *
 * Relevance is judged from the replayed messages, not by the code under test: the identifier
 * comes from the user's request and must occur in what the compaction summarized and not in
 * what it kept (recall.ts); a record is relevant when its text or subject holds it. The
 * knowledge searched is the file **as it stood when the request was sent** (its byte length
 * recorded before each request, background writes settled): the final file also holds the
 * records later checkpoints made of the query itself ("user asked: <the query>"), which hold
 * its identifier by construction. That figure is kept as `finalFile`, to show the difference.
 */
import { promises as fsp } from "node:fs";
import { applyKnowledgeLines, emptyKnowledgeState, readKnowledge } from "../agents/archive/knowledge-store.js";
import type { KnowledgeEntry } from "../agents/archive/knowledge-store.js";
import { asRecord, searchKnowledge } from "../agents/archive/knowledge-store.js";
import { knowledgeSettled } from "../agents/engine/archive-hooks.js";
import { renderRecalledContext } from "../agents/archive/recall-render.js";
import { SearchIndex } from "../agents/archive/archive.js";
import { readArchiveFile } from "../agents/archive/store.js";
import { NEXT_TURNS, type RecallQuery, type RecallReport } from "./recall.js";

/** Records of a knowledge file's text (whole lines only), supersede marks applied. */
function parseKnowledge(text: string): KnowledgeEntry[] {
  const state = emptyKnowledgeState();
  applyKnowledgeLines(state, text.slice(0, text.lastIndexOf("\n") + 1).split("\n"));
  return [...state.entries.values()];
}

type KnowledgeIndex = { index: SearchIndex; entries: Map<string, KnowledgeEntry> };

/** An index over `entries` (the file as it stood at a request). */
function indexKnowledge(entries: readonly KnowledgeEntry[]): KnowledgeIndex {
  const index = new SearchIndex();
  index.add(entries.map((e, i) => asRecord(e, i + 1)));
  return { index, entries: new Map(entries.map((e) => [e.id, e])) };
}

export interface KnowledgeQuery {
  compaction: number;
  turn: number;
  segment: number;
  identifiers: string[];
  /** records in the file when the request was sent */
  recordsThen: number;
  /** of them, relevant */
  relevantThen: number;
  /** rank (1-based) of the first relevant record in the knowledge top 5, or null */
  knowledgeRank: number | null;
  /** recall.ts's detail rank (top 20), or null */
  detailRank: number | null;
}

export interface KnowledgeReport {
  definition: string;
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
  /** the earlier measure: the final file searched for every query (leaks later records, see above) */
  finalFile: { at5Knowledge: number | null; at5Either: number | null };
  /**
   * The automatic block with both sections for every counted query, as the live path renders it
   * (knowledge hits of the file as it stood, up to 8; detail filled with the final archive's top 8
   * for the query at no threshold, the fullest case): its tokens against the cap.
   */
  block: { capTokens: number; blocks: number; maxTokens: number; withKnowledge: number; overCap: number } | null;
  detail: KnowledgeQuery[];
}

const share = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 1000) / 1000 : null);

/** Byte length of the knowledge file before each request (the replayer calls `mark` before sending it). */
export class KnowledgeTimeline {
  private readonly bytes = new Map<number, number>();
  constructor(private readonly file: string) {}

  async mark(segment: number): Promise<void> {
    await knowledgeSettled();
    const size = await fsp.stat(this.file).then((s) => s.size, () => 0);
    this.bytes.set(segment, size);
  }

  bytesAt(segment: number): number | undefined {
    return this.bytes.get(segment);
  }
}

const relevantTo = (q: RecallQuery) => (e: { text: string; subject: string }) => q.identifiers.some((id) => e.text.includes(id) || e.subject.includes(id));

export async function measureKnowledge(
  file: string,
  recall: RecallReport | null,
  queryTexts: ReadonlyMap<string, string>,
  timeline?: KnowledgeTimeline,
  /** the final archive and the cap, for the block check */
  blockCheck?: { archiveFile: string; capTokens: number },
): Promise<KnowledgeReport> {
  const archive = blockCheck ? new SearchIndex() : null;
  if (archive && blockCheck) archive.add((await readArchiveFile(blockCheck.archiveFile)).records);
  const block = blockCheck ? { capTokens: blockCheck.capTokens, blocks: 0, maxTokens: 0, withKnowledge: 0, overCap: 0 } : null;
  const text = await fsp.readFile(file, "utf8").catch(() => "");
  const entries = await readKnowledge(file);
  const byKind: Record<string, number> = {};
  for (const e of entries) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
  const final = indexKnowledge(entries);
  const indexAt = new Map<number, { loaded: ReturnType<typeof indexKnowledge>; records: number }>();
  let k = 0;
  let d = 0;
  let either = 0;
  let kFinal = 0;
  let eitherFinal = 0;
  const detail: KnowledgeQuery[] = [];
  const queries = (recall?.detail ?? []).filter((q) => q.turn < NEXT_TURNS);
  for (const q of queries) {
    const query = queryTexts.get(q.query) ?? q.query;
    const rel = relevantTo(q);
    // the file as it stood when the request was sent (whole lines up to that length)
    const bytes = timeline?.bytesAt(q.segment) ?? Buffer.byteLength(text);
    let then = indexAt.get(bytes);
    if (!then) {
      const prefix = Buffer.from(text, "utf8").subarray(0, bytes).toString("utf8");
      const es = parseKnowledge(prefix);
      then = { loaded: indexKnowledge(es), records: es.length };
      indexAt.set(bytes, then);
    }
    const hits = searchKnowledge(then.loaded, query, 5);
    const at = hits.findIndex((h) => rel(h.entry));
    const kHit = at >= 0;
    const dHit = q.rank !== null && q.rank <= 5;
    const kFinalHit = searchKnowledge(final, query, 5).some((h) => rel(h.entry));
    if (archive && block) {
      const rendered = renderRecalledContext(searchKnowledge(then.loaded, query, 8), archive.search(query, { limit: 8 }), block.capTokens);
      block.blocks++;
      block.maxTokens = Math.max(block.maxTokens, rendered.tokens);
      if (rendered.text.includes("<knowledge>")) block.withKnowledge++;
      if (rendered.tokens > block.capTokens) block.overCap++;
    }
    if (kHit) k++;
    if (dHit) d++;
    if (kHit || dHit) either++;
    if (kFinalHit) kFinal++;
    if (kFinalHit || dHit) eitherFinal++;
    detail.push({
      compaction: q.compaction,
      turn: q.turn,
      segment: q.segment,
      identifiers: q.identifiers,
      recordsThen: then.records,
      relevantThen: [...then.loaded.entries.values()].filter(rel).length,
      knowledgeRank: kHit ? at + 1 : null,
      detailRank: q.rank,
    });
  }
  return {
    definition:
      "queries: recall.ts's counted queries; relevant record: its text or subject holds the query's identifier; knowledge searched as the file stood when the request was sent; either: a relevant record in the knowledge top 5 or a relevant segment in the detail top 5",
    records: entries.length,
    superseded: entries.filter((e) => e.supersededBy).length,
    byKind,
    queries: queries.length,
    at5Knowledge: share(k, queries.length),
    at5Detail: share(d, queries.length),
    at5Either: share(either, queries.length),
    finalFile: { at5Knowledge: share(kFinal, queries.length), at5Either: share(eitherFinal, queries.length) },
    block,
    detail,
  };
}
