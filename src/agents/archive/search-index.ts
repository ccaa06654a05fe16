/** Full-text index of one archive (bm25.ts): one rare term matched once scores about its idf, so a threshold in idf
 * units means "at least this specific a match". */
import { Bm25, type Bm25Hit, type Bm25Options, type Bm25Saved } from "./bm25.js";
import { identifierTerms, MAX_QUERY_READ, pickSpecificTerms } from "./query-terms.js";
import type { ArchiveRecord } from "./store.js";
import { queryTerms } from "./tokenize.js";

export type SearchHit = Omit<Bm25Hit, "id"> & { record: ArchiveRecord };

/** `skipTerm`: the automatic recall drops what the agent can already see; `session`: only this session's segments. */
export type SearchOptions = Omit<Bm25Options, "keep"> & { limit?: number; session?: string };

const SAVE_MIN_ADDED = 256;
const SAVE_SHARE = 0.1;
/** Format version of a serialized index (SearchIndex.serialize); another version is rebuilt. */
const SERIAL_VERSION = 4; // 4: bm25.ts's postings (3 and before: MiniSearch's JSON)

export class SearchIndex {
  private bm25 = new Bm25();
  private readonly records = new Map<string, ArchiveRecord>();
  /** records added / removed since it was serialized or loaded (when to save it again) */
  addedSinceSave = 0;
  removedSinceSave = 0;

  /** The index as one JSON line: loading it costs a parse instead of tokenizing every record again. */
  serialize(): string {
    return JSON.stringify({ v: SERIAL_VERSION, ...this.bm25.save() });
  }

  /** An index from `serialize` over `records`; null when torn, of another version or naming a gone record. */
  static deserialize(text: string, records: ReadonlyMap<string, ArchiveRecord>): SearchIndex | null {
    try {
      const saved = JSON.parse(text) as Bm25Saved & { v: number };
      if (saved?.v !== SERIAL_VERSION || !Array.isArray(saved.ids) || !Array.isArray(saved.postings)) return null;
      const bm25 = Bm25.load(saved, records);
      if (!bm25) return null;
      const idx = new SearchIndex();
      idx.bm25 = bm25;
      for (const id of saved.ids) idx.records.set(id, records.get(id)!);
      return idx;
    } catch {
      return null;
    }
  }

  get size(): number {
    return this.records.size;
  }

  /** Saved again after SAVE_MIN_ADDED additions (or SAVE_SHARE) or any removal (a saved gone record is useless). */
  get worthSaving(): boolean {
    return this.removedSinceSave > 0 || this.addedSinceSave >= Math.max(SAVE_MIN_ADDED, SAVE_SHARE * this.size);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  /** Recall thresholds' unit: BM25's idf at df = 1 (raw BM25 grows with the archive; this unit does not). */
  scoreUnit(): number {
    const n = Math.max(1, this.records.size);
    return Math.log(1 + (n - 1 + 0.5) / 1.5);
  }

  /** All records, oldest first. */
  values(): IterableIterator<ArchiveRecord> {
    return this.records.values();
  }

  add(records: readonly ArchiveRecord[]): void {
    for (const r of records) {
      if (this.records.has(r.id)) continue;
      this.addedSinceSave++;
      this.records.set(r.id, r);
      this.bm25.add(r);
    }
  }

  remove(ids: Iterable<string>): void {
    const gone = [...ids].filter((id) => this.records.delete(id));
    this.removedSinceSave += gone.length;
    this.bm25.remove(gone);
  }

  /** The query's most specific terms (query-terms.ts's pickSpecificTerms). */
  specificTerms(query: string): string[] {
    return pickSpecificTerms(queryTerms(query, MAX_QUERY_READ), identifierTerms(query), this.bm25.df, this.records.size);
  }

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(1, Math.min(opts.limit ?? 5, 100));
    const session = opts.session;
    const keep = session ? (id: string) => this.records.get(id)?.session === session : undefined;
    const hits = this.bm25.search(query, limit, { ...opts, keep });
    return hits.map((h) => ({ record: this.records.get(h.id)!, score: h.score, bm25: h.bm25, terms: h.terms }));
  }
}
