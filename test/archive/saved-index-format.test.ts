/**
 * The saved index (SearchIndex.serialize, bm25.ts's postings): a loaded one answers exactly as the
 * index it was saved from, also after removals; a file of an older format (MiniSearch's header
 * line + JSON, before 2026-11-28) is never used, and the index is rebuilt from segments.jsonl.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { SessionArchive } from "../../src/agents/archive/archive.js";
import { SearchIndex } from "../../src/agents/archive/archive.js";
import { segmentsOf } from "../../src/agents/archive/segments.js";
import { type ArchiveRecord, parseLines } from "../../src/agents/archive/store.js";
import { readTranscriptJson } from "../helpers/transcripts.js";
import { userText } from "../../src/agents/messages/read.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("saved index", () => {
  it("a loaded index searches as the saved one did, before and after removals", () => {
    const messages = readTranscriptJson<AgentMessage[]>("badlogic__pi-mono__large-session.json").slice(0, 600);
    const records: ArchiveRecord[] = segmentsOf(messages).map((s, i) => ({ v: 1, id: `r${i}`, seq: i + 1, at: 1 + i, session: i % 2 ? "a" : "b", compaction: 1, ...s }));
    const byId = new Map(records.map((r) => [r.id, r]));
    const queries = messages.filter((m) => m.role === "user").map((m) => userText(m)).filter((q) => q.trim().length >= 3);
    expect(queries.length).toBeGreaterThan(10);
    const idx = new SearchIndex();
    idx.add(records);
    for (const round of [0, 1]) {
      if (round === 1) idx.remove(records.filter((_, i) => i % 5 === 0).map((r) => r.id));
      const loaded = SearchIndex.deserialize(idx.serialize(), byId);
      expect(loaded?.size).toBe(idx.size);
      let hits = 0;
      for (const q of queries) {
        for (const opts of [{ limit: 20 }, { limit: 5, session: "a" }]) {
          const want = idx.search(q, opts);
          hits += want.length;
          expect(loaded!.search(q, opts)).toEqual(want);
        }
      }
      expect(hits).toBeGreaterThan(50);
    }
  });

  it("an index file of an older format is rebuilt from the archive, nothing lost", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-saved-index-"));
    dirs.push(stateDir);
    const msgs = Array.from({ length: 300 }, (_, i) => ({ role: "user", content: `look at helperOld${i} in src/old${i}.ts`, timestamp: 1_000 + i }) as AgentMessage);
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(msgs), { session: "s", compaction: 1 });
    await a.indexInBackground();
    const ids = parseLines(readFileSync(a.file, "utf8").split("\n")).records.map((r) => r.id);
    const ms = JSON.stringify({ documentCount: ids.length, nextId: ids.length, documentIds: {}, fieldIds: { text: 0 }, serializationVersion: 2 });
    writeFileSync(a.indexFile, `${JSON.stringify({ v: 3, ids, df: [], msLength: ms.length })}\n${ms}`);
    const b = new SessionArchive(stateDir, "k");
    await b.indexInBackground();
    expect(b.search("helperOld217")[0]!.record.text).toContain("helperOld217");
    const records = new Map(parseLines(readFileSync(b.file, "utf8").split("\n")).records.map((r) => [r.id, r]));
    expect(SearchIndex.deserialize(readFileSync(b.indexFile, "utf8"), records)?.size).toBe(300);
  });
});
