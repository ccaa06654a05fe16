/**
 * The BM25 postings (archive/bm25.ts) give the scores of the MiniSearch index they replaced
 * (test/helpers/minisearch-index.ts, the reference) bit for bit: the same top 100 with the same scores for every query, on a real session's
 * messages and on random ones built from a small vocabulary (many ties, identifiers, paths,
 * empty fields). After removals (the newest document kept: both keep the newest time seen)
 * they score as a fresh index of what is left would, up to the running average's rounding:
 * the same documents, scores within 1e-9.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SearchIndex as ProductIndex } from "../../src/agents/archive/archive.js";
import { SearchIndex } from "../helpers/minisearch-index.js";
import type { ArchiveRecord } from "../../src/agents/archive/store.js";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";
import { Bm25 as Bm25Postings } from "../../src/agents/archive/bm25.js";
import { keysOf } from "../../src/agents/messages/message-key.js";
import { recordOf } from "../../src/agents/trim/relevance-index.js";
import { userText } from "../../src/agents/messages/read.js";
import { readTranscriptJson } from "../helpers/transcripts.js";

const FILE = "badlogic__pi-mono__large-session.json";

const top = (idx: SearchIndex, q: string) => new Map(idx.search(q, { limit: 100 }).map((h) => [h.record.id, h.score]));
const topOf = (p: Bm25Postings, q: string) => new Map(p.search(q, 100).map((h) => [h.id, h.score]));

function both(records: readonly ArchiveRecord[]) {
  const idx = new SearchIndex();
  const p = new Bm25Postings();
  idx.add(records);
  for (const r of records) p.add(r);
  return { idx, p };
}

describe("Bm25Postings", () => {
  it("a real session: the same top 100 and scores as SearchIndex for each user request and the recall query", () => {
    const messages = readTranscriptJson<AgentMessage[]>(FILE).slice(0, 900);
    const keys = keysOf(messages);
    const records = messages.flatMap((m, i) => recordOf(keys[i]!, m, i + 1) ?? []);
    const { idx, p } = both(records);
    const queries = messages.filter((m) => m.role === "user").map((m) => userText(m)).filter((q) => q.trim().length >= 3);
    queries.push(recallQueryOf(messages).query);
    expect(queries.length).toBeGreaterThan(10);
    let nonEmpty = 0;
    for (const q of queries) {
      const want = top(idx, q);
      if (want.size > 0) nonEmpty++;
      expect(topOf(p, q)).toEqual(want);
    }
    expect(nonEmpty).toBeGreaterThan(10);
  });

  it("the archive's SearchIndex over them: the reference's hits, scores, BM25 and matched terms, with a session filter", () => {
    const messages = readTranscriptJson<AgentMessage[]>(FILE).slice(0, 900);
    const keys = keysOf(messages);
    const records = messages.flatMap((m, i) => recordOf(keys[i]!, m, i + 1) ?? []).map((r, i) => ({ ...r, session: i % 3 === 0 ? "s1" : "s2" }));
    const ref = new SearchIndex();
    const ours = new ProductIndex();
    ref.add(records);
    ours.add(records);
    const hitsOf = (hits: Array<{ record: { id: string }; score: number; bm25: number; terms: string[] }>) => hits.map((h) => ({ id: h.record.id, score: h.score, bm25: h.bm25, terms: [...h.terms].sort() }));
    const queries = messages.filter((m) => m.role === "user").map((m) => userText(m)).filter((q) => q.trim().length >= 3);
    let compared = 0;
    for (const q of queries) {
      for (const opts of [{ limit: 5 }, { limit: 50, session: "s1" }]) {
        const want = hitsOf(ref.search(q, opts));
        compared += want.length;
        expect(hitsOf(ours.search(q, opts))).toEqual(want);
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  const WORDS = ["alpha", "beta", "gamma", "parseConfig", "src/agents/trim.ts", "max_tokens", "v2", "the", "a", "ledger", "日本語", "fix", "error"];
  const text = fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((ws) => ws.join(" "));
  const record = fc.record({ text, tool: fc.constantFrom("", "read", "bash", "write"), target: fc.constantFrom("", "src/agents/trim.ts", "README.md"), t: fc.integer({ min: 0, max: 5 * 86_400_000 }) });

  it("random documents and queries: identical top 100 and scores", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 150 }), fc.array(text, { minLength: 1, maxLength: 5 }), (docs, queries) => {
        const records: ArchiveRecord[] = docs.map((d, i) => ({ v: 1, id: `k${i}`, seq: i + 1, role: "user", t: d.t, at: 0, session: "", compaction: 0, text: d.text, ...(d.tool ? { tool: d.tool } : {}), ...(d.target ? { target: d.target } : {}) }));
        const { idx, p } = both(records);
        for (const q of queries) expect(topOf(p, q)).toEqual(top(idx, q));
      }),
      { numRuns: 150 },
    );
  });

  it("after removals: the documents of a fresh index of what is left, scores within 1e-9", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 2, maxLength: 120 }), fc.array(fc.boolean(), { minLength: 120, maxLength: 120 }), text, (docs, drop, q) => {
        const records: ArchiveRecord[] = docs.map((d, i) => ({ v: 1, id: `k${i}`, seq: i + 1, role: "user", t: d.t, at: 0, session: "", compaction: 0, text: d.text, ...(d.tool ? { tool: d.tool } : {}), ...(d.target ? { target: d.target } : {}) }));
        const p = new Bm25Postings();
        for (const r of records) p.add(r);
        const newest = Math.max(...records.map((r) => r.t));
        const gone = records.filter((r, i) => drop[i] && r.t < newest).map((r) => r.id);
        p.remove(gone);
        const fresh = new SearchIndex();
        fresh.add(records.filter((r) => !gone.includes(r.id)));
        const want = top(fresh, q);
        const got = topOf(p, q);
        expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
        for (const [id, s] of want) expect(Math.abs(got.get(id)! - s)).toBeLessThan(1e-9 * Math.max(1, s));
      }),
      { numRuns: 150 },
    );
  });
});
