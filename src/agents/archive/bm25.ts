/**
 * BM25+ over posting lists in plain arrays (the archive's search, smart trim's relevance): a query costs
 * O(terms x postings) with no per-result objects (they made trim's p99), MiniSearch's scores bit for bit
 * (bm25-postings.test.ts). A removed document leaves the scores at once, its entries swept off the request path.
 */
import { identifierTerms, MAX_QUERY_READ, pickSpecificTerms, type QueryTermsMemo } from "./tokenize.js";
import { queryTerms, tokenize } from "./tokenize.js";
import type { ArchiveRecord } from "./store.js";
import { bestOf, grown } from "./arrays.js";

// Ranking weights (docs/archive.md#ranking): the target field weighs twice the text (a segment whose path or command
// names the term is about it); a receipt ranks at RECEIPT_WEIGHT, a result receipt's target is not indexed again.
// Every weight is <= 1, so recency and weight only lower a score.
export const TARGET_FIELD_BOOST = 2;
export const TOOL_FIELD_BOOST = 1;
export const RECEIPT_WEIGHT = 0.25;
const RECEIPT_MAX_CHARS = 160;
const FIELD_BOOST = [1, TOOL_FIELD_BOOST, TARGET_FIELD_BOOST] as const; // text, tool, target
/** Weight of a query term that is a code identifier or file name (syntax, not a word list). */
export const IDENTIFIER_BOOST = 3;
/** Recency halves per day before the newest segment, to a floor: an old exact match beats a new loose one. */
const RECENCY_HALF_LIFE_MS = 24 * 3600_000;
const RECENCY_FLOOR = 0.5;

export function recencyFactor(t: number, newest: number): number {
  const age = Math.max(0, newest - t);
  return RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.pow(0.5, age / RECENCY_HALF_LIFE_MS);
}

type Ranked = Pick<ArchiveRecord, "role" | "text" | "target" | "error">;

/** A short succeeded result that holds its own target, or a call with nothing but its target. */
export function isReceipt(r: Ranked): boolean {
  if (r.error) return false;
  if (r.role === "tool_call") return r.text.trim().length === 0;
  return r.role === "tool_result" && typeof r.target === "string" && r.target.length > 0 && r.text.length <= RECEIPT_MAX_CHARS && r.text.includes(r.target);
}

export const segmentWeight = (r: Ranked): number => (isReceipt(r) ? RECEIPT_WEIGHT : 1);

/** The target as indexed: none for a result receipt, whose text holds it (a bare call has nothing else). */
export const indexedTarget = (r: Ranked): string => (r.role === "tool_result" && isReceipt(r) ? "" : (r.target ?? ""));

const FIELDS = 3;
// BM25+ parameters (MiniSearch's defaults)
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** Postings swept per event-loop turn after removals. */
const SWEEP_TERMS = 2_000;

/** Entries `document << 2 | field` (a document's fields in order), their term frequencies, live documents per field. */
type Posting = { e: number[]; tf: number[]; live: number[] };

/** `terms`: distinct per field, in field order (to take it out again); `lengths`: their counts (field lengths). */
type Doc = { id: string; terms: string[]; lengths: number[]; chars: number };

/** `score`: BM25 times recency and segment weight; `terms`: the query terms it matched, in query order. */
export type Bm25Hit = { id: string; score: number; bm25: number; terms: string[] };

/** `keep`: documents to return (the others are scored, not returned); hits below `minScore` are dropped. */
export type Bm25Options = { skipTerm?: (term: string) => boolean; keep?: (id: string) => boolean; minScore?: number };

/** The saved form (SearchIndex.serialize): live documents in order, average field lengths, postings. */
export type Bm25Saved = { ids: string[]; avg: number[]; postings: Array<[string, number[], number[]]> };

export class Bm25 {
  private readonly postings = new Map<string, Posting>();
  /** documents per term (tokenize.ts picks a query's terms by it) */
  readonly df = new Map<string, number>();
  private readonly docs: Array<Doc | null> = [];
  private readonly byId = new Map<string, number>();
  private avg = [0, 0, 0];
  /** chars indexed in the documents held (the caller's weight of the index) */
  chars = 0;
  private newest = 0;
  /** dead entries left in the posting lists, and the sweep's place */
  private dead = 0;
  private sweep: Iterator<Posting> | null = null;
  /** per-query scratch, grown with the documents; `lo`/`hi`: matched query terms (<= 48) as bits */
  private acc = new Float64Array(64);
  private part = new Float64Array(64);
  private matched = new Uint16Array(64);
  private inTerm = new Uint8Array(64);
  private lo = new Uint32Array(64);
  private hi = new Uint32Array(64);
  /** per document, for the search's loops (no object read per posting): indexed, field lengths, time, weight, seq */
  private present = new Uint8Array(64);
  private lens = new Float64Array(3 * 64);
  private times = new Float64Array(64);
  private weights = new Float64Array(64);
  private seqs = new Float64Array(64);
  /** smart trim's: the terms of query lines read before (tokenize.ts) */
  constructor(private readonly queries?: QueryTermsMemo) {}

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  add(r: ArchiveRecord): void {
    if (this.byId.has(r.id)) return;
    const fields = [r.text, r.tool ?? "", indexedTarget(r)];
    const n = this.docs.length;
    const prior = this.byId.size;
    const terms: string[] = [];
    const lengths: number[] = [];
    for (let f = 0; f < FIELDS; f++) {
      const tf = new Map<string, number>();
      for (const t of tokenize(fields[f]!)) tf.set(t, (tf.get(t) ?? 0) + 1);
      // a running average, operation for operation as MiniSearch kept it
      this.avg[f] = (this.avg[f]! * prior + tf.size) / (prior + 1);
      lengths.push(tf.size);
      for (const [t, c] of tf) {
        terms.push(t);
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { e: [], tf: [], live: [0, 0, 0] }));
        // a document counts once per term, at the first of its fields holding it
        if (p.e.length === 0 || p.e[p.e.length - 1]! >> 2 !== n) this.df.set(t, (this.df.get(t) ?? 0) + 1);
        p.e.push((n << 2) | f);
        p.tf.push(c);
        p.live[f]!++;
      }
    }
    this.place(r, terms, lengths);
  }

  /** Registers document number docs.length, its postings already in place. */
  private place(r: ArchiveRecord, terms: string[], lengths: number[]): void {
    const n = this.docs.length;
    const chars = r.text.length + (r.tool ?? "").length + indexedTarget(r).length;
    this.docs.push({ id: r.id, terms, lengths, chars });
    this.byId.set(r.id, n);
    this.chars += chars;
    if (n >= this.present.length) {
      // room in the per-document arrays and the per-query scratch (zero between queries), grown together
      this.lens = grown(this.lens, FIELDS * (n + 1));
      for (const k of ["acc", "part", "times", "weights", "seqs"] as const) this[k] = grown(this[k], n + 1);
      for (const k of ["present", "inTerm"] as const) this[k] = grown(this[k], n + 1);
      for (const k of ["lo", "hi"] as const) this[k] = grown(this[k], n + 1);
      this.matched = grown(this.matched, n + 1);
    }
    this.present[n] = 1;
    for (let f = 0; f < FIELDS; f++) this.lens[n * FIELDS + f] = lengths[f]!;
    const t = r.t || r.at;
    this.times[n] = t;
    this.weights[n] = segmentWeight(r);
    this.seqs[n] = r.seq;
    if (t > this.newest) this.newest = t;
  }

  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const n = this.byId.get(id);
      if (n === undefined) continue;
      const doc = this.docs[n]!;
      this.byId.delete(id);
      this.docs[n] = null;
      this.present[n] = 0;
      const distinct = new Set<string>();
      const c = this.byId.size + 1; // with the one being removed
      let at = 0;
      for (let f = 0; f < FIELDS; f++) {
        this.avg[f] = c === 1 ? 0 : (this.avg[f]! * c - doc.lengths[f]!) / (c - 1);
        for (const end = at + doc.lengths[f]!; at < end; at++) {
          const t = doc.terms[at]!;
          this.postings.get(t)!.live[f]!--;
          this.dead++;
          if (distinct.has(t)) continue;
          distinct.add(t);
          const v = (this.df.get(t) ?? 0) - 1;
          if (v > 0) this.df.set(t, v);
          else this.df.delete(t);
        }
      }
      this.chars -= doc.chars;
    }
    if (this.dead > 0 && this.sweep === null) {
      this.sweep = this.postings.values();
      setImmediate(() => this.sweepSome());
    }
  }

  /** Drops the dead entries of SWEEP_TERMS posting lists, then yields (scheduled only while `sweep` is set). */
  private sweepSome(): void {
    const it = this.sweep!;
    for (let i = 0; i < SWEEP_TERMS; i++) {
      const next = it.next();
      if (next.done) {
        // entries removed while the sweep ran are swept by the next one
        this.sweep = this.dead > 0 ? this.postings.values() : null;
        break;
      }
      const { e, tf, live } = next.value;
      if (e.length === live[0]! + live[1]! + live[2]!) continue;
      let w = 0;
      for (let j = 0; j < e.length; j++) {
        if (this.docs[e[j]! >> 2] === null) continue;
        e[w] = e[j]!;
        tf[w++] = tf[j]!;
      }
      this.dead -= e.length - w;
      e.length = w;
      tf.length = w;
    }
    if (this.sweep) setImmediate(() => this.sweepSome());
  }

  /** The best `limit` documents for `query` (ties: the later document first), best first. */
  search(query: string, limit: number, { skipTerm, keep, minScore }: Bm25Options = {}): Bm25Hit[] {
    if (this.size === 0) return [];
    const { ids, read } = this.queries?.of(query) ?? { ids: identifierTerms(query), read: queryTerms(query, MAX_QUERY_READ) };
    const picked = pickSpecificTerms(read, ids, this.df, this.size);
    const terms = skipTerm ? picked.filter((t) => !skipTerm(t)) : picked;
    if (terms.length === 0) return [];
    const { acc, part, matched, inTerm, present, lens, avg, lo, hi, seqs } = this;
    const touched: number[] = [];
    const idf = [0, 0, 0];
    const boost = [0, 0, 0];
    for (let ti = 0; ti < terms.length; ti++) {
      const term = terms[ti]!;
      const p = this.postings.get(term);
      if (!p) continue;
      const termBoost = ids.has(term) ? IDENTIFIER_BOOST : 1;
      for (let f = 0; f < FIELDS; f++) {
        const matching = p.live[f]!;
        idf[f] = Math.log(1 + (this.size - matching + 0.5) / (matching + 0.5));
        boost[f] = termBoost * FIELD_BOOST[f]!;
      }
      const inThis: number[] = [];
      const { e, tf: tfs } = p;
      for (let i = 0; i < e.length; i++) {
        const entry = e[i]!;
        const n = entry >> 2;
        if (present[n] === 0) continue;
        const f = entry & 3;
        const tf = tfs[i]!;
        // a document's fields come in field order, summed as MiniSearch summed them
        const raw = idf[f]! * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * lens[n * FIELDS + f]!) / avg[f]!)));
        const weighted = boost[f]! * raw;
        if (inTerm[n]) part[n] = part[n]! + weighted;
        else {
          inTerm[n] = 1;
          part[n] = weighted;
          inThis.push(n);
        }
      }
      // the OR of the terms' results: the term's sum per document added to the running one
      for (const n of inThis) {
        inTerm[n] = 0;
        if (matched[n]) acc[n] = acc[n]! + part[n]!;
        else {
          acc[n] = part[n]!;
          touched.push(n);
        }
        matched[n]!++;
        if (ti < 32) lo[n] = lo[n]! | (1 << ti);
        else hi[n] = hi[n]! | (1 << (ti - 32));
      }
    }
    const cand: number[] = [];
    const final: number[] = [];
    const bm25: number[] = [];
    for (const n of touched) {
      const q = matched[n]!;
      matched[n] = 0;
      // times the matched terms and divided again: MiniSearch's score, bit for bit
      const b = (acc[n]! * q) / Math.max(1, q);
      const score = b * recencyFactor(this.times[n]!, this.newest) * this.weights[n]!;
      if ((keep && !keep(this.docs[n]!.id)) || (minScore !== undefined && score < minScore)) continue;
      cand.push(n);
      final.push(score);
      bm25.push(b);
    }
    // the later document first on equal scores
    const below = (a: number, b: number) => final[a]! < final[b]! || (final[a] === final[b] && seqs[cand[a]!]! < seqs[cand[b]!]!);
    const hits = bestOf(cand.length, limit, below).map((j) => {
      const n = cand[j]!;
      const matchedTerms = terms.filter((_, i) => ((i < 32 ? lo[n]! >>> i : hi[n]! >>> (i - 32)) & 1) === 1);
      return { id: this.docs[n]!.id, score: final[j]!, bm25: bm25[j]!, terms: matchedTerms };
    });
    for (const n of touched) lo[n] = hi[n] = 0;
    return hits;
  }

  /** The live documents renumbered in order, with their postings. */
  save(): Bm25Saved {
    const renumber = new Int32Array(this.docs.length);
    const ids: string[] = [];
    this.docs.forEach((d, n) => {
      if (d) renumber[n] = ids.push(d.id) - 1;
    });
    const postings: Bm25Saved["postings"] = [];
    for (const [term, p] of this.postings) {
      const e: number[] = [];
      const tf: number[] = [];
      for (let i = 0; i < p.e.length; i++) {
        const n = p.e[i]! >> 2;
        if (this.docs[n] === null) continue;
        e.push((renumber[n]! << 2) | (p.e[i]! & 3));
        tf.push(p.tf[i]!);
      }
      if (e.length > 0) postings.push([term, e, tf]);
    }
    return { ids, avg: [...this.avg], postings };
  }

  /** The index `save` gave, over `records`; null when it names a record they lack or is malformed. */
  static load(saved: Bm25Saved, records: ReadonlyMap<string, ArchiveRecord>): Bm25 | null {
    const docs = saved.ids.map((id) => records.get(id));
    if (docs.some((r) => !r) || saved.avg.length !== FIELDS) return null;
    const idx = new Bm25();
    const fieldTerms = docs.map((): string[][] => [[], [], []]);
    for (const [term, e, tf] of saved.postings) {
      const live = [0, 0, 0];
      let df = 0;
      for (let i = 0; i < e.length; i++) {
        const n = e[i]! >> 2;
        const f = e[i]! & 3;
        if (n >= docs.length || f >= FIELDS || tf[i] === undefined) return null;
        live[f]!++;
        fieldTerms[n]![f]!.push(term);
        if (i === 0 || e[i - 1]! >> 2 !== n) df++;
      }
      idx.postings.set(term, { e, tf, live });
      idx.df.set(term, df);
    }
    docs.forEach((r, n) => idx.place(r!, fieldTerms[n]!.flat(), fieldTerms[n]!.map((ts) => ts.length)));
    idx.avg = saved.avg;
    return idx;
  }
}
