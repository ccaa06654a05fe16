/**
 * Smart trim's BM25 (issue 26): the ranking of the archive's SearchIndex (same tokenizer, term
 * choice, field boosts, MiniSearch's BM25+ formula, recency), on posting lists kept in plain
 * arrays, so a query never searched costs O(its terms x their postings) with no per-result
 * objects: ~10x less than the MiniSearch search it replaces, whose allocations made the
 * decision's p99. Scores are computed with the same floating-point operations in the same
 * order, so they are bit-for-bit SearchIndex.search's (test/trim/bm25-postings.test.ts).
 * A removed document leaves its postings at once for the scores (MiniSearch kept counting
 * it in a term's document count until its vacuum ran); its entries are swept off the request
 * path, in slices.
 */
import { IDENTIFIER_BOOST, pickSpecificTermsOf, recencyFactor } from "../archive/search-index.js";
import { indexedTarget, segmentWeight, TARGET_FIELD_BOOST, TOOL_FIELD_BOOST } from "../archive/rank-weights.js";
import type { ArchiveRecord } from "../archive/store.js";
import { tokenize } from "../archive/tokenize.js";
import { BYTES_PER_MEMO_CHAR, QueryTermsMemo } from "./query-terms-memo.js";

/** SearchIndex's fields, in its order, and their boosts as MiniSearch applies them (0 counts as 1). */
const FIELD_BOOST = [1, TOOL_FIELD_BOOST || 1, TARGET_FIELD_BOOST || 1] as const;
const FIELDS = 3;
/** MiniSearch's default BM25+ parameters */
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** Postings swept per event-loop turn after removals. */
const SWEEP_TERMS = 2_000;

interface Posting {
  /** entries `document << 2 | field`, a document's fields in order, and their term frequencies */
  e: number[];
  tf: number[];
  /** per field: live documents in the list */
  live: [number, number, number];
}

interface Doc {
  id: string;
  seq: number;
  t: number;
  weight: number;
  /** distinct terms, field after field (`lengths` says where each ends): to take the document out again */
  terms: string[];
  /** unique terms per field (BM25's field length) */
  lengths: number[];
  /** chars indexed (the caller's weight of the index) */
  chars: number;
}

export interface ScoredDoc {
  id: string;
  score: number;
}

export class Bm25Postings {
  private readonly postings = new Map<string, Posting>();
  private readonly df = new Map<string, number>();
  private readonly docs: Array<Doc | null> = [];
  private readonly byId = new Map<string, number>();
  private readonly avg = [0, 0, 0];
  private count = 0;
  private charsHeld = 0;
  private newest = 0;
  /** dead entries left in the posting lists, and the sweep's place */
  private dead = 0;
  private sweep: Iterator<Posting> | null = null;
  /** per-query scratch, grown with the documents */
  private acc = new Float64Array(64);
  private part = new Float64Array(64);
  private matched = new Uint16Array(64);
  private inTerm = new Uint8Array(64);
  /** per document, for the search's loops (no object read per posting): indexed, field lengths, time, weight, seq */
  private present = new Uint8Array(64);
  private lens = new Float64Array(3 * 64);
  private times = new Float64Array(64);
  private weights = new Float64Array(64);
  private seqs = new Float64Array(64);
  /** the terms of query lines read before (a new query shares all but its newest request with the last) */
  private readonly queries = new QueryTermsMemo();

  get size(): number {
    return this.count;
  }

  /** Reads a user request's terms now (off the request path) for the queries that will hold it. */
  rememberQueryText(text: string): void {
    this.queries.remember(text);
  }

  /** Heap of the remembered query lines. */
  get queryMemoBytes(): number {
    return this.queries.chars * BYTES_PER_MEMO_CHAR;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Chars indexed in the documents held (the caller's weight of the index). */
  get chars(): number {
    return this.charsHeld;
  }

  /** As SearchIndex.add: the document's distinct terms counted once, then each field indexed. */
  add(r: ArchiveRecord): void {
    if (this.byId.has(r.id)) return;
    const fields = [r.text, r.tool ?? "", indexedTarget(r)];
    const tokens = fields.map((f) => tokenize(f));
    const distinct = new Set<string>();
    for (const ts of tokens) for (const t of ts) distinct.add(t);
    for (const t of distinct) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    const n = this.docs.length;
    const doc: Doc = { id: r.id, seq: r.seq, t: r.t || r.at, weight: segmentWeight(r), terms: [], lengths: [], chars: fields[0]!.length + fields[1]!.length + fields[2]!.length };
    this.count++;
    this.charsHeld += doc.chars;
    for (let f = 0; f < FIELDS; f++) {
      const tf = new Map<string, number>();
      for (const t of tokens[f]!) tf.set(t, (tf.get(t) ?? 0) + 1);
      // MiniSearch's running average (addFieldLength), operation for operation
      const prior = this.count - 1;
      this.avg[f] = (this.avg[f]! * prior + tf.size) / (prior + 1);
      doc.lengths.push(tf.size);
      for (const [t, c] of tf) {
        doc.terms.push(t);
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { e: [], tf: [], live: [0, 0, 0] }));
        p.e.push((n << 2) | f);
        p.tf.push(c);
        p.live[f as 0 | 1 | 2]++;
      }
    }
    this.docs.push(doc);
    this.byId.set(r.id, n);
    this.growDocs(n + 1);
    this.present[n] = 1;
    for (let f = 0; f < FIELDS; f++) this.lens[n * FIELDS + f] = doc.lengths[f]!;
    this.times[n] = doc.t;
    this.weights[n] = doc.weight;
    this.seqs[n] = doc.seq;
    if (doc.t > this.newest) this.newest = doc.t;
  }

  /** As SearchIndex.remove, the postings' entries left for the sweep. */
  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const n = this.byId.get(id);
      if (n === undefined) continue;
      const doc = this.docs[n]!;
      this.byId.delete(id);
      this.docs[n] = null;
      this.present[n] = 0;
      const distinct = new Set<string>();
      let at = 0;
      for (let f = 0; f < FIELDS; f++) {
        // MiniSearch's removeFieldLength
        const c = this.count;
        this.avg[f] = c === 1 ? 0 : (this.avg[f]! * c - doc.lengths[f]!) / (c - 1);
        for (const end = at + doc.lengths[f]!; at < end; at++) {
          const t = doc.terms[at]!;
          distinct.add(t);
          this.postings.get(t)!.live[f as 0 | 1 | 2]--;
          this.dead++;
        }
      }
      this.count--;
      this.charsHeld -= doc.chars;
      for (const t of distinct) {
        const v = (this.df.get(t) ?? 0) - 1;
        if (v > 0) this.df.set(t, v);
        else this.df.delete(t);
      }
    }
    if (this.dead > 0 && this.sweep === null) {
      this.sweep = this.postings.values();
      setImmediate(() => this.sweepSome());
    }
  }

  private sweepSome(): void {
    const it = this.sweep;
    if (!it) return;
    for (let i = 0; i < SWEEP_TERMS; i++) {
      const next = it.next();
      if (next.done) {
        this.sweep = null;
        // entries removed while the sweep ran are swept by the next one
        if (this.dead > 0) {
          this.sweep = this.postings.values();
          setImmediate(() => this.sweepSome());
        }
        return;
      }
      this.compact(next.value);
    }
    setImmediate(() => this.sweepSome());
  }

  private compact(p: Posting): void {
    const { e, tf } = p;
    if (e.length === p.live[0] + p.live[1] + p.live[2]) return;
    let w = 0;
    for (let i = 0; i < e.length; i++) {
      if (this.docs[e[i]! >> 2] === null) continue;
      e[w] = e[i]!;
      tf[w++] = tf[i]!;
    }
    this.dead -= e.length - w;
    e.length = w;
    tf.length = w;
  }

  /**
   * The best `limit` documents for `query` by SearchIndex.search's final score (BM25 divided
   * as it divides it, times recency and segment weight; ties: the later document first).
   */
  search(query: string, limit: number): ScoredDoc[] {
    if (this.count === 0) return [];
    const { ids, read } = this.queries.of(query);
    const terms = pickSpecificTermsOf(read, ids, this.df, this.count);
    if (terms.length === 0) return [];
    this.grow();
    const { acc, part, matched, inTerm, present, lens, avg } = this;
    const touched: number[] = [];
    const idf = [0, 0, 0];
    const boost = [0, 0, 0];
    for (const term of terms) {
      const p = this.postings.get(term);
      if (!p) continue;
      const termBoost = ids.has(term) ? IDENTIFIER_BOOST : 1;
      for (let f = 0; f < FIELDS; f++) {
        const matching = p.live[f as 0 | 1 | 2];
        idf[f] = Math.log(1 + (this.count - matching + 0.5) / (matching + 0.5));
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
        // calcBM25Score, then MiniSearch's weighting (term weight 1, document boost 1); a
        // document's fields come in field order, as MiniSearch adds them up
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
      }
    }
    const final = new Float64Array(touched.length);
    for (let j = 0; j < touched.length; j++) {
      const n = touched[j]!;
      const q = matched[n]!;
      matched[n] = 0;
      // MiniSearch multiplies by the matched terms, SearchIndex divides by them again
      const bm25 = (acc[n]! * q) / Math.max(1, q);
      final[j] = bm25 * recencyFactor(this.times[n]!, this.newest) * this.weights[n]!;
    }
    return this.best(touched, final, limit);
  }

  /** The `limit` best of the scored documents (score, then the later document first), best first, without sorting them all. */
  private best(touched: readonly number[], final: Float64Array, limit: number): ScoredDoc[] {
    const seqs = this.seqs;
    const seq = (j: number) => seqs[touched[j]!]!;
    // a < b: a ranks below b
    const below = (a: number, b: number) => final[a]! < final[b]! || (final[a] === final[b] && seq(a) < seq(b));
    const heap: number[] = []; // min-heap of the best so far (root: the lowest of them)
    for (let j = 0; j < touched.length; j++) {
      if (heap.length === limit) {
        if (!below(heap[0]!, j)) continue;
        heap[0] = j;
      } else heap.push(j);
      // restore the heap: sift up a push, sift down a replaced root
      if (heap.length <= limit && heap[0] !== j) {
        let i = heap.length - 1;
        while (i > 0) {
          const up = (i - 1) >> 1;
          if (!below(heap[i]!, heap[up]!)) break;
          [heap[i], heap[up]] = [heap[up]!, heap[i]!];
          i = up;
        }
      } else {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let m = i;
          if (l < heap.length && below(heap[l]!, heap[m]!)) m = l;
          if (r < heap.length && below(heap[r]!, heap[m]!)) m = r;
          if (m === i) break;
          [heap[i], heap[m]] = [heap[m]!, heap[i]!];
          i = m;
        }
      }
    }
    heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
    return heap.map((j) => ({ id: this.docs[touched[j]!]!.id, score: final[j]! }));
  }

  /** Room for `n` documents in the per-document arrays (doubling). */
  private growDocs(n: number): void {
    if (n <= this.present.length) return;
    let cap = this.present.length;
    while (cap < n) cap *= 2;
    const present = new Uint8Array(cap);
    present.set(this.present);
    this.present = present;
    const lens = new Float64Array(FIELDS * cap);
    lens.set(this.lens);
    this.lens = lens;
    for (const k of ["times", "weights", "seqs"] as const) {
      const a = new Float64Array(cap);
      a.set(this[k]);
      this[k] = a;
    }
  }

  private grow(): void {
    const n = this.docs.length;
    if (n <= this.acc.length) return;
    let cap = this.acc.length;
    while (cap < n) cap *= 2;
    this.acc = new Float64Array(cap);
    this.part = new Float64Array(cap);
    this.matched = new Uint16Array(cap);
    this.inTerm = new Uint8Array(cap);
  }
}
