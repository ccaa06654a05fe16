/**
 * The archive's search index as it was before archive/bm25.ts replaced MiniSearch: kept as the
 * tests' reference (the same hits and scores, bit for bit). Not product code.
 *
 * Full-text index of one archive: MiniSearch (BM25 ranking; pure JS, no native build)
 * with the archive tokenizer, then a recency decay on top. Scores are BM25 in idf units:
 * one rare term matched once scores about its idf (ln of the archive size over its
 * document frequency), so a threshold means "at least this specific a match".
 */
import MiniSearch, { type Options } from "minisearch";
import { IDENTIFIER_BOOST, indexedTarget, recencyFactor, segmentWeight, TARGET_FIELD_BOOST, TOOL_FIELD_BOOST } from "../../src/agents/archive/bm25.js";
import { identifierTerms, MAX_QUERY_READ, pickSpecificTerms, queryTerms, tokenize } from "../../src/agents/archive/tokenize.js";
import type { SearchHit, SearchOptions } from "../../src/agents/archive/archive.js";
import type { ArchiveRecord } from "../../src/agents/archive/store.js";

interface Doc {
  id: string;
  text: string;
  tool: string;
  target: string;
}

/** Format version of a serialized index (SearchIndex.serialize); another version is rebuilt. */
const SERIAL_VERSION = 3; // 2: directory-pair terms (tokenize.ts); 3: a receipt's target not indexed (rank-weights.ts)

interface SerialHeader {
  v: number;
  /** ids of the indexed records, in archive order */
  ids: string[];
  df: Array<[string, number]>;
  /** length of the MiniSearch JSON after the header line (a torn file is shorter) */
  msLength: number;
}

export class SearchIndex {
  private readonly options: Options<Doc> = {
    idField: "id",
    fields: ["text", "tool", "target"],
    // add() has tokenized the document already (for df): reuse those tokens
    tokenize: (text: string) => this.pending.get(text) ?? tokenize(text),
    processTerm: (term: string) => term,
    searchOptions: { combineWith: "OR", boost: { target: TARGET_FIELD_BOOST, tool: TOOL_FIELD_BOOST } },
    autoVacuum: { batchSize: 5000, batchWait: 0, minDirtCount: 100, minDirtFactor: 0.05 },
  };
  private ms = new MiniSearch<Doc>(this.options);
  private readonly records = new Map<string, ArchiveRecord>();
  /** document frequency per term: picks the specific terms of a query */
  private df = new Map<string, number>();
  private readonly pending = new Map<string, string[]>();
  private newest = 0;
  /** records added / removed since it was serialized or loaded (when to save it again) */
  addedSinceSave = 0;
  removedSinceSave = 0;

  get dirty(): boolean {
    return this.addedSinceSave > 0 || this.removedSinceSave > 0;
  }

  markSaved(): void {
    this.addedSinceSave = 0;
    this.removedSinceSave = 0;
  }

  /**
   * The index as text: a header line (version, indexed ids, document frequencies, length
   * of the rest) and MiniSearch's own JSON. Loading it costs a parse instead of
   * tokenizing and indexing every record again.
   */
  serialize(): string {
    const ms = JSON.stringify(this.ms);
    const header: SerialHeader = { v: SERIAL_VERSION, ids: [...this.records.keys()], df: [...this.df], msLength: ms.length };
    return `${JSON.stringify(header)}\n${ms}`;
  }

  /**
   * An index from `serialize` output, for the archive's current `records`; null when the
   * text is torn, of another version, or indexes a record the archive no longer has
   * (evicted or expired since: its document frequencies cannot be taken back without it).
   * Records the archive has and the index lacks are the caller's to add.
   */
  static deserialize(text: string, records: ReadonlyMap<string, ArchiveRecord>): SearchIndex | null {
    try {
      const nl = text.indexOf("\n");
      if (nl < 0) return null;
      const header = JSON.parse(text.slice(0, nl)) as SerialHeader;
      if (header?.v !== SERIAL_VERSION || !Array.isArray(header.ids) || !Array.isArray(header.df)) return null;
      if (text.length - nl - 1 !== header.msLength) return null;
      const idx = new SearchIndex();
      for (const id of header.ids) {
        const r = records.get(id);
        if (!r) return null;
        idx.records.set(id, r);
        const t = r.t || r.at;
        if (t > idx.newest) idx.newest = t;
      }
      idx.ms = MiniSearch.loadJSON<Doc>(text.slice(nl + 1), idx.options);
      if (idx.ms.documentCount !== idx.records.size) return null;
      idx.df = new Map(header.df);
      return idx;
    } catch {
      return null;
    }
  }

  get size(): number {
    return this.records.size;
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  get(id: string): ArchiveRecord | undefined {
    return this.records.get(id);
  }

  /**
   * The score unit of automatic recall thresholds: the idf of a term found in a single
   * segment (MiniSearch's BM25 idf at df = 1). Raw BM25 grows with the archive's size (idf
   * is a log of it); a threshold in this unit means the same specificity in an archive of
   * 10 segments and of 20,000.
   */
  scoreUnit(): number {
    const n = Math.max(1, this.records.size);
    return Math.log(1 + (n - 1 + 0.5) / 1.5);
  }

  /** All records, oldest first (insertion order = archive order). */
  values(): IterableIterator<ArchiveRecord> {
    return this.records.values();
  }

  private countTerms(r: ArchiveRecord, delta: 1 | -1, tokens?: Map<string, string[]>): void {
    const distinct = new Set<string>();
    for (const field of [r.text, r.tool ?? "", indexedTarget(r)]) {
      const t = tokenize(field);
      tokens?.set(field, t);
      for (const term of t) distinct.add(term);
    }
    for (const term of distinct) {
      const n = (this.df.get(term) ?? 0) + delta;
      if (n > 0) this.df.set(term, n);
      else this.df.delete(term);
    }
  }

  add(records: readonly ArchiveRecord[]): void {
    for (const r of records) {
      if (this.records.has(r.id)) continue;
      this.addedSinceSave++;
      this.records.set(r.id, r);
      this.countTerms(r, 1, this.pending);
      try {
        this.ms.add({ id: r.id, text: r.text, tool: r.tool ?? "", target: indexedTarget(r) });
      } finally {
        this.pending.clear();
      }
      const t = r.t || r.at;
      if (t > this.newest) this.newest = t;
    }
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const r = this.records.get(id);
      if (!r) continue;
      this.removedSinceSave++;
      this.records.delete(id);
      this.countTerms(r, -1);
      this.ms.discard(id);
    }
  }

  /**
   * The query's most specific terms: known to the index, at most MAX_QUERY_TERMS, and only
   * while their posting lists add up to POSTINGS_BUDGET (at least the first term is always
   * used); first the query's code identifiers (`identifiers`), rarest first, then its other
   * terms, rarest first. A pasted page costs a bounded number of posting-list walks, and
   * words nearly every segment has cannot flood the ranking, while a file name that many
   * segments mention still counts when the budget allows. Identifiers go first because a
   * pasted stack trace or listing has more rare fragments (line numbers, hash pieces, prose)
   * than the cap holds, and the name the user pasted it for must not be the one cut.
   */
  specificTerms(query: string, identifiers: ReadonlySet<string> = identifierTerms(query)): string[] {
    return pickSpecificTerms(queryTerms(query, MAX_QUERY_READ), identifiers, this.df, this.records.size);
  }

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(1, Math.min(opts.limit ?? 5, 100));
    if (this.records.size === 0) return [];
    const skip = opts.skipTerm;
    const ids = identifierTerms(query);
    const terms = skip ? this.specificTerms(query, ids).filter((t) => !skip(t)) : this.specificTerms(query, ids);
    if (terms.length === 0) return [];
    const filter = opts.session ? (r: { id: string }) => this.records.get(r.id)?.session === opts.session : undefined;
    // terms are tokens already: MiniSearch must not split them again; the query's code
    // identifiers and file names weigh IDENTIFIER_BOOST times a plain word
    const results = this.ms.search(
      { combineWith: "OR", queries: terms },
      // field weights: rank-weights.ts (a path match no longer outranks content)
      { tokenize: (t) => [t], boost: { target: TARGET_FIELD_BOOST, tool: TOOL_FIELD_BOOST }, boostTerm: (t) => (ids.has(t) ? IDENTIFIER_BOOST : 1), ...(filter ? { filter } : {}) },
    );
    // MiniSearch multiplies a result's BM25 by how many query terms it matched. With a
    // long request that rewards a segment for sharing many ordinary words with it over
    // one that holds its rarest term (the identifier the user named): plain BM25, the sum
    // of the matched terms' idf-weighted term frequencies, ranks by specificity instead.
    for (const r of results) r.score /= Math.max(1, r.queryTerms.length);
    results.sort((a, b) => b.score - a.score);
    const hits: SearchHit[] = [];
    // Results come sorted by BM25 and recency only lowers a score (factor <= 1), so once a
    // result's BM25 is below the k-th best final score (or below minScore), no later one
    // can enter the top k: stop there instead of scoring every match.
    const topK: number[] = []; // best final scores so far, descending, at most `limit`
    for (const res of results) {
      if (topK.length >= limit && res.score < topK[limit - 1]!) break;
      if (opts.minScore !== undefined && res.score < opts.minScore) break;
      const record = this.records.get(res.id as string);
      if (!record) continue;
      const score = res.score * recencyFactor(record.t || record.at, this.newest) * segmentWeight(record);
      if (opts.minScore !== undefined && score < opts.minScore) continue;
      hits.push({ record, score, bm25: res.score, terms: res.queryTerms });
      let i = topK.length;
      while (i > 0 && topK[i - 1]! < score) i--;
      topK.splice(i, 0, score);
      if (topK.length > limit) topK.pop();
    }
    hits.sort((a, b) => b.score - a.score || b.record.seq - a.record.seq);
    return hits.slice(0, limit);
  }

  /** Approximate serialized size of the index (MiniSearch's own JSON form), in bytes. */
  serializedBytes(): number {
    return Buffer.byteLength(JSON.stringify(this.ms));
  }
}
