import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { SearchIndex, SessionArchive } from "../../src/agents/archive/archive.js";
import { chunkText, SEGMENT_BOUNDS, segmentsOf } from "../../src/agents/archive/segments.js";
import { identifierTerms, tokenize } from "../../src/agents/archive/tokenize.js";
import { appendToTail, encodeRecords, newRecords, parseLines, segmentId, serialize } from "../../src/agents/archive/store.js";

const readRecords = (file: string) => parseLines(readFileSync(file, "utf8").split("\n")).records;
/** The session-start id scan: an append of nothing follows the tail. */
const prefetchIds = (a: SessionArchive) =>
  appendToTail(a.stateDir, a.sessionKey, [], { session: "", compaction: 0 }, a.limits);
import { parseRecord } from "../../src/agents/archive/store.js";
import { RESTORE_END_MARKER, RESTORE_HEADER_POST_COMPACTION } from "../../src/agents/inject/markers.js";

const dirs: string[] = [];
function tempState(): string {
  const d = mkdtempSync(join(tmpdir(), "cm-archive-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SECRET = "sk-ant-api03-AbCdEf0123456789GhIjKl";
let ts = 1_700_000_000_000;
const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: ts++ }) as AgentMessage;
const assistant = (text: string, calls: Array<{ id: string; name: string; arguments: unknown }> = []): AgentMessage =>
  ({
    role: "assistant",
    content: [{ type: "text", text }, ...calls.map((c) => ({ type: "toolCall", ...c }))],
    stopReason: calls.length ? "toolUse" : "stop",
    timestamp: ts++,
  }) as unknown as AgentMessage;
const result = (id: string, name: string, text: string, isError = false): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: ts++ }) as AgentMessage;

function span(n: number, tag: string): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(user(`${tag} request ${i}: look at module${tag}${i}`));
    out.push(assistant(`Reading src/${tag}/file${i}.ts`, [{ id: `${tag}-${i}`, name: "read", arguments: { path: `src/${tag}/file${i}.ts` } }]));
    out.push(result(`${tag}-${i}`, "read", `export function helper${tag}${i}() { return ${i}; }`));
  }
  return out;
}

describe("tokenizer", () => {
  it("splits camelCase, snake_case, paths and CJK", () => {
    expect(tokenize("parseCheckpointFile")).toEqual(["parsecheckpointfile", "parse", "checkpoint", "file"]);
    expect(tokenize("max_segments")).toEqual(["max_segments", "max", "segments"]);
    expect(tokenize("see src/agents/redact.ts")).toEqual(expect.arrayContaining(["redact.ts", "src", "agents", "redact", "ts"]));
    expect(tokenize("压缩后")).toEqual(["压", "压缩", "缩", "缩后", "后"]);
  });

  it("adds each pair of adjacent directory names of a path, not the pair ending in the file name", () => {
    const t = tokenize("move it to src/modes/interactive/components/footer.ts");
    expect(t).toEqual(expect.arrayContaining(["src/modes", "modes/interactive", "interactive/components", "footer.ts"]));
    expect(t).not.toContain("components/footer.ts");
    expect(tokenize("C:\\repo\\Packages\\TUI")).toEqual(expect.arrayContaining(["repo/packages", "packages/tui"]));
    expect(tokenize("./.git/objects/2d")).toEqual(expect.arrayContaining(["git/objects", "objects/2d"]));
    expect(tokenize("a/../b").filter((x) => x.includes("/"))).toEqual([]);
  });
});

describe("segmentsOf", () => {
  it("keeps role, time, tool, target and a redacted bounded body; skips injected text", () => {
    const msgs: AgentMessage[] = [
      user(`System: [Post-compaction checkpoint restore]\nSystem: old\n\nplease deploy with key ${SECRET}`),
      user(`${RESTORE_HEADER_POST_COMPACTION}\nWorking on: "x"\n${RESTORE_END_MARKER}\nfix parseConfig`),
      { role: "custom", customType: "context-gauge", content: "[Context: 80%]", display: false, timestamp: ts++ } as unknown as AgentMessage,
      { role: "custom", customType: "context-recall", content: "recalled", display: false, timestamp: ts++ } as unknown as AgentMessage,
      assistant("Running the build", [{ id: "c1", name: "bash", arguments: { command: "npm run build", timeout: 60 } }]),
      result("c1", "bash", `error TS2304 ${"x".repeat(10_000)} tail-marker`, true),
    ];
    const segs = segmentsOf(msgs);
    expect(segs.map((s) => s.role).slice(0, 5)).toEqual(["user", "user", "assistant", "tool_call", "tool_result"]);
    expect(segs[0]!.text).toBe("please deploy with key [REDACTED:anthropic]");
    expect(segs[1]!.text).toBe("fix parseConfig");
    expect(segs[3]).toMatchObject({ tool: "bash", target: "npm run build", text: '{"timeout":60}' });
    const res = segs[4]!;
    expect(res).toMatchObject({ tool: "bash", target: "npm run build", error: true, part: 1 });
    // a long output is split into bounded chunks, none cut away
    const chunks = segs.filter((s) => s.role === "tool_result");
    expect(chunks.length).toBe(res.parts);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(SEGMENT_BOUNDS.chunk);
    expect(chunks[0]!.text).toContain("error TS2304");
    expect(chunks.at(-1)!.text).toContain("tail-marker");
    expect(segs[0]!.t).toBeGreaterThan(0);
    expect(JSON.stringify(segs)).not.toContain("Working on");
  });
});

describe("encodeRecords", () => {
  it("is the UTF-8 of serialize, line for line, with Latin-1, two-byte and astral texts mixed", () => {
    const texts = ["plain ascii", "caf\u00e9 na\u00efve", "\u65e5\u672c\u8a9e \u{1F600} and \"quotes\" \\ \n newline", "\u0000 control", "x".repeat(70_000)];
    const drafts = texts.map((text, i) => ({ role: "tool_result" as const, tool: "read", target: `f${i}.ts`, text, t: i }));
    const { records } = newRecords(drafts, () => false, 1, 1_700_000_000_000, { session: "s", compaction: 1 });
    for (const n of [0, 1, 2, records.length]) {
      const some = records.slice(0, n);
      expect(encodeRecords(some).equals(Buffer.from(serialize(some), "utf8"))).toBe(true);
    }
    expect(parseLines(encodeRecords(records).toString("utf8").split("\n")).records).toEqual(records);
  });
});

describe("chunks", () => {
  it("split a long text into overlapping chunks cut at whitespace, every token whole in one of them", () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const chunks = chunkText(words.join(" "));
    expect(chunks.length).toBeGreaterThan(5);
    const seen = new Set(chunks.flatMap((c) => c.split(" ")));
    for (const w of words) expect(seen.has(w)).toBe(true);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(SEGMENT_BOUNDS.chunk);
    // consecutive chunks overlap
    expect(chunks[1]!.startsWith(chunks[0]!.split(" ").at(-1)!)).toBe(false);
    expect(chunks[0]!.includes(chunks[1]!.split(" ")[0]!)).toBe(true);
  });

  it("keep at most maxChunks per text: first and last halves, with an elision mark", () => {
    const chunks = chunkText("abc ".repeat(40_000));
    expect(chunks.length).toBe(SEGMENT_BOUNDS.maxChunks);
    expect(chunks[SEGMENT_BOUNDS.maxChunks / 2 - 1]).toContain("…");
  });
});

describe("ranking", () => {
  it("a long request ranks the segment holding its rare identifier above segments sharing many of its common words", () => {
    const idx = new SearchIndex();
    const common = "please could you check the build and then the tests and the docs again for me";
    const recs = [
      ...Array.from({ length: 40 }, (_, i) => ({ role: "user" as const, text: `${common.split(" ").slice(0, 8 + (i % 8)).join(" ")} item ${i}` })),
      { role: "tool_result" as const, tool: "read", target: "src/ledger.ts", text: "export function reconcileLedgerDrift() {}" },
    ].map((d, i) => ({ v: 1 as const, id: segmentId(d), seq: i + 1, t: 1000 + i, at: 2000, session: "s", compaction: 1, ...d }));
    idx.add(recs);
    const hits = idx.search(`${common} and tell me what reconcileLedgerDrift returned`, { limit: 3 });
    expect(hits[0]!.record.target).toBe("src/ledger.ts");
  });

  const recordsOf = (docs: Array<{ role: "user" | "assistant" | "tool_result"; text: string; tool?: string; target?: string }>) =>
    docs.map((d, i) => ({ v: 1 as const, id: segmentId(d), seq: i + 1, t: 1000 + i, at: 2000, session: "s", compaction: 1, ...d }));

  it("a folder named by its last segments ranks the files under it above paths that merely hold the same words", () => {
    const idx = new SearchIndex();
    idx.add(
      recordsOf([
        // the same words, in other places of other paths
        ...["components/modes.ts", "interactive/theme", "modes/print/components", "components/interactive-shell", "modes/rpc/interactive.ts"].flatMap((p, i) => [
          { role: "tool_result" as const, tool: "read", target: `src/${p}/x${i}.ts`, text: `import from src/${p}; modes interactive components ${i}` },
          { role: "assistant" as const, text: `the interactive modes use components from src/${p} (${i})` },
        ]),
        { role: "tool_result", tool: "bash", target: "ls", text: "src/modes/interactive/components/footer.ts" },
      ]),
    );
    const hits = idx.search("no. the tui folder -> modes/interactive/components", { limit: 3 });
    expect(hits[0]!.record.text).toContain("modes/interactive/components");
  });

  it("keeps the identifiers a pasted trace names when its rare fragments exceed the term cap", () => {
    const idx = new SearchIndex();
    const fragments = Array.from({ length: 60 }, (_, i) => `frag${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    idx.add(
      recordsOf([
        ...fragments.map((f) => ({ role: "assistant" as const, text: `noted ${f}` })),
        ...Array.from({ length: 10 }, (_, i) => ({ role: "tool_result" as const, tool: "read", target: `themes/t${i}.json`, text: `{ "dimGray": "#66${i}" }` })),
      ]),
    );
    const paste = `${fragments.join(" ")}\nError: Variable reference not found: dimGray`;
    expect(idx.specificTerms(paste)[0]).toBe("dimgray");
    expect(idx.search(paste, { limit: 3 })[0]!.record.text).toContain("dimGray");
  });

  it("reads the identifiers of a long paste past its first 1,024 distinct terms (the file a listing ends with)", () => {
    const idx = new SearchIndex();
    const words = Array.from({ length: 1100 }, (_, i) => `w${i.toString(36)}x`);
    idx.add(
      recordsOf([
        ...words.slice(0, 50).map((w) => ({ role: "assistant" as const, text: `noted ${w}` })),
        { role: "user", text: "Ran ls: biome.json package.json" },
      ]),
    );
    const listing = `${words.join("\n")}\n./biome.json`;
    expect(idx.specificTerms(listing)).toContain("biome.json");
    expect(idx.search(listing, { limit: 5 }).map((h) => h.record.text)).toContain("Ran ls: biome.json package.json");
  });

  it("takes no trailing number or hash fragment of a path as an identifier term", () => {
    const ids = identifierTerms("./.git/objects/2d/d9964aa40a9cfda93fa00ce5981288115018269 src/theme.ts:269 initTheme");
    expect(ids.has("269")).toBe(false);
    expect([...ids].some((t) => /^[0-9a-f]{2,6}$/.test(t) && t !== "2d")).toBe(false);
    expect(ids.has("theme.ts")).toBe(true);
    expect(ids.has("inittheme")).toBe(true);
    expect(ids.has("theme")).toBe(true);
  });
});

describe("SessionArchive", () => {
  it("archives to disk without secrets, dedups by content and finds identifiers, paths and CJK", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "agent:main:test");
    const msgs = [
      ...span(20, "alpha"),
      user(`the token is ${SECRET}`),
      user("修复压缩后的检索问题"),
      assistant("Renamed parseCheckpointFile to loadCheckpoint in src/agents/checkpoint/store.ts"),
    ];
    const r1 = await a.append(segmentsOf(msgs), { session: "s1", compaction: 1 });
    expect(r1.added).toBe(83); // 4 segments per read round trip (user, text, call, result)
    const r2 = await a.append(segmentsOf(msgs), { session: "s1", compaction: 2 });
    expect(r2).toMatchObject({ added: 0, duplicates: 83 });

    const raw = readFileSync(a.file, "utf8");
    expect(raw).not.toContain(SECRET);
    expect(raw.trim().split("\n")).toHaveLength(83);

    expect(a.search("where is parse_checkpoint_file now?")[0]!.record.text).toContain("parseCheckpointFile");
    expect(a.search("store.ts")[0]!.record.text).toContain("src/agents/checkpoint/store.ts");
    const file7 = a.search("what did file7.ts in alpha contain", { limit: 3 });
    expect(file7[0]!.record.target ?? file7[0]!.record.text).toContain("file7.ts");
    expect(a.search("压缩")[0]!.record.text).toBe("修复压缩后的检索问题");
    expect(a.search("helperalpha13")[0]!.record.text).toContain("helperalpha13()");

    // a new process sees the same archive
    const b = new SessionArchive(stateDir, "agent:main:test");
    await b.load();
    expect(b.size).toBe(83);
    expect(b.search("helperalpha13")[0]!.record.id).toBe(a.search("helperalpha13")[0]!.record.id);
  });

  it("indexes off the awaited append: in the background after it, or at the first search if that comes first", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(30, "bg")), { session: "s", compaction: 1 });
    // the append returned with the records durable but not indexed yet
    expect(a.isReady).toBe(false);
    await a.indexInBackground();
    expect(a.isReady).toBe(true);
    expect(a.search("helperbg17")[0]!.record.text).toContain("helperbg17()");
    // a search before the background indexer gets to new records indexes them itself
    await a.append(segmentsOf(span(5, "late")), { session: "s", compaction: 2 });
    expect(a.isReady).toBe(false);
    expect(a.search("helperlate3")[0]!.record.text).toContain("helperlate3()");
    expect(a.isReady).toBe(true);
  });

  it("saves the index: a new process loads it instead of rebuilding; a torn or stale index file is rebuilt from the records", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(70, "old")), { session: "s", compaction: 1 });
    await a.indexInBackground();
    const saved = statSync(a.indexFile);
    expect(SearchIndex.deserialize(readFileSync(a.indexFile, "utf8"), new Map([...readRecords(a.file)].map((r) => [r.id, r])))).not.toBeNull();

    // restart: the saved index is taken as is (not rewritten), and finds the old segments
    const b = new SessionArchive(stateDir, "k");
    await b.indexInBackground();
    expect(b.isReady).toBe(true);
    expect(statSync(b.indexFile).ino).toBe(saved.ino);
    expect(b.search("helperold21")[0]!.record.text).toContain("helperold21()");
    // archiving after the restart adds to it (too few records to save the index again: the
    // next process indexes them from the file); the next process sees both
    await b.append(segmentsOf(span(3, "new")), { session: "s2", compaction: 1 });
    await b.indexInBackground();
    expect(statSync(b.indexFile).ino).toBe(saved.ino);
    const c = new SessionArchive(stateDir, "k");
    await c.indexInBackground();
    expect(c.search("helperold21")[0]!.record.text).toContain("helperold21()");
    expect(c.search("helpernew2")[0]!.record.text).toContain("helpernew2()");

    // a torn index file (crash mid-write of a non-atomic copy, disk error): rebuilt, nothing lost
    const text = readFileSync(a.indexFile, "utf8");
    writeFileSync(a.indexFile, text.slice(0, Math.floor(text.length / 2)));
    const d = new SessionArchive(stateDir, "k");
    await d.load();
    expect(d.search("helperold21")[0]!.record.text).toContain("helperold21()"); // first search, sync path
    expect(d.search("helpernew2")[0]!.record.text).toContain("helpernew2()");
    await d.indexInBackground();
    // rewritten whole, now with every record
    const rebuilt = SearchIndex.deserialize(readFileSync(d.indexFile, "utf8"), new Map([...readRecords(d.file)].map((r) => [r.id, r])));
    expect(rebuilt?.size).toBe(d.size);

    // an index naming a record the file no longer has (evicted by another process): rebuilt
    writeFileSync(d.file, readFileSync(d.file, "utf8").split("\n").slice(5).join("\n"));
    const e = new SessionArchive(stateDir, "k");
    await e.indexInBackground();
    expect(e.size).toBe(d.size - 5);
    expect(e.search("helpernew2")[0]!.record.text).toContain("helpernew2()");
    expect(SearchIndex.deserialize(readFileSync(e.indexFile, "utf8"), new Map([...readRecords(e.file)].map((r) => [r.id, r])))).not.toBeNull();
  });

  it("after a restart, the first append dedups against the file's ids without loading the archive", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(10, "first")), { session: "s", compaction: 1 });
    // a torn line and a line of another shape in the file: the scan stays right
    appendFileSync(a.file, '{"v":1,"id":"0011223344');
    const b = new SessionArchive(stateDir, "k");
    const res = await b.append(segmentsOf([...span(10, "first"), ...span(2, "second")]), { session: "s2", compaction: 1 });
    expect(res).toMatchObject({ added: 8, duplicates: 40 });
    expect(b.isLoaded).toBe(false); // the awaited part did not parse the records
    await b.indexInBackground();
    expect(b.size).toBe(48);
    expect(b.search("helpersecond1")[0]!.record.text).toContain("helpersecond1()");
    const seqs = readRecords(b.file).map((r) => r.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(Math.min(...seqs.slice(40))).toBeGreaterThan(Math.max(...seqs.slice(0, 40)));
    // over maxSegments: the loaded path, which evicts now
    const c = new SessionArchive(stateDir, "k", { maxSegments: 45, retentionDays: 30 });
    const over = await c.append(segmentsOf(span(1, "third")), { session: "s3", compaction: 1 });
    expect(over.evicted).toBeGreaterThan(0);
    expect(c.isLoaded).toBe(true);
  });

  it("ids prefetched at session start: the first append continues the scan over what others appended since, and a rewrite restarts it", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(5, "one")), { session: "s", compaction: 1 });
    const b = new SessionArchive(stateDir, "k");
    await prefetchIds(b);
    // another process appends after the prefetch: b must still dedup against it, and continue its seqs
    await new SessionArchive(stateDir, "k").append(segmentsOf(span(3, "two")), { session: "s2", compaction: 1 });
    const res = await b.append(segmentsOf([...span(5, "one"), ...span(3, "two"), ...span(2, "three")]), { session: "s3", compaction: 1 });
    expect(res).toMatchObject({ added: 8, duplicates: 32 });
    expect(b.isLoaded).toBe(false);
    const seqs = readRecords(b.file).map((r) => r.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    // a prefetch followed by a rewrite of the file (eviction elsewhere): a full scan again, no stale ids
    const c = new SessionArchive(stateDir, "k");
    await prefetchIds(c);
    await new SessionArchive(stateDir, "k", { maxSegments: 30, retentionDays: 30 }).append(segmentsOf(span(1, "four")), { session: "s4", compaction: 1 });
    const kept = new Set(readRecords(c.file).map((r) => r.id));
    const again = await c.append(segmentsOf(span(5, "one")), { session: "s5", compaction: 1 });
    // what eviction removed is archived anew, what it kept is a duplicate
    const ids = segmentsOf(span(5, "one")).map((d) => segmentId(d));
    expect(again.duplicates).toBe(ids.filter((id) => kept.has(id)).length);
    expect(again.added).toBe(ids.filter((id) => !kept.has(id)).length);
    expect(again.added).toBeGreaterThan(0);
  });

  it("survives a torn append: earlier records intact, the torn line skipped, later appends readable", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(3, "one")), { session: "s", compaction: 1 });
    const before = readFileSync(a.file, "utf8");
    // a crash in the middle of writing a record
    appendFileSync(a.file, '{"v":1,"id":"00112233445566','utf8');
    const b = new SessionArchive(stateDir, "k");
    await b.load();
    expect(b.size).toBe(12);
    await b.append(segmentsOf(span(3, "two")), { session: "s", compaction: 2 });
    const c = new SessionArchive(stateDir, "k");
    await c.load();
    expect(c.size).toBe(24);
    expect(c.search("helpertwo2")[0]!.record.text).toContain("helpertwo2");
    // every earlier line byte for byte; the torn record stays one unreadable line of its own
    const after = readFileSync(a.file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.split("\n").filter(Boolean).filter((l) => !parseRecord(l))).toEqual(['{"v":1,"id":"00112233445566']);
    expect(c.stats().badLines).toBe(1);
  });

  it("a corrupt file loads what parses and never throws", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    await a.append(segmentsOf(span(2, "x")), { session: "s", compaction: 1 });
    writeFileSync(a.file, `garbage\n\u0000\u0001\n${readFileSync(a.file, "utf8")}{"v":2}\n`);
    const b = new SessionArchive(stateDir, "k");
    await b.load();
    expect(b.size).toBe(8);
    expect(b.stats().badLines).toBe(3);
  });

  it("keeps at most maxSegments, evicting the oldest", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k", { maxSegments: 50, retentionDays: 30 });
    for (let c = 1; c <= 5; c++) await a.append(segmentsOf(span(5, `c${c}x`)), { session: "s", compaction: c });
    expect(a.size).toBeLessThanOrEqual(50);
    const b = new SessionArchive(stateDir, "k", { maxSegments: 50, retentionDays: 30 });
    await b.load();
    expect(b.size).toBe(a.size);
    expect(b.search("helperc5x4").length).toBeGreaterThan(0);
    const texts = (q: string) => b.search(q, { limit: 100 }).map((h) => h.record.text);
    expect(texts("helperc1x0").some((t) => t.includes("helperc1x0"))).toBe(false);
  });

  it("drops segments past the retention period", async () => {
    const stateDir = tempState();
    let now = Date.UTC(2026, 0, 1);
    const a = new SessionArchive(stateDir, "k", { maxSegments: 1000, retentionDays: 7 }, () => now);
    await a.append(segmentsOf(span(2, "old")), { session: "s", compaction: 1 });
    now += 8 * 86_400_000;
    await a.append(segmentsOf(span(2, "new")), { session: "s", compaction: 2 });
    expect(a.search("helperold1", { limit: 100 }).some((h) => h.record.text.includes("helperold1"))).toBe(false);
    expect(readFileSync(a.file, "utf8")).not.toContain("helperold1");
    expect(a.size).toBe(8);
  });

  it("two writers on one key lose nothing", async () => {
    const stateDir = tempState();
    const a = new SessionArchive(stateDir, "k");
    const b = new SessionArchive(stateDir, "k");
    await Promise.all([
      ...[1, 2, 3].map((c) => a.append(segmentsOf(span(4, `a${c}q`)), { session: "a", compaction: c })),
      ...[1, 2, 3].map((c) => b.append(segmentsOf(span(4, `b${c}q`)), { session: "b", compaction: c })),
    ]);
    const c = new SessionArchive(stateDir, "k");
    await c.load();
    expect(c.size).toBe(96);
    await a.refresh();
    expect(a.size).toBe(96);
  });
});

describe("archive redaction", () => {
  it("also removes bare random tokens that redactSecrets alone keeps, and keeps identifiers", () => {
    const token = ["eAq7", "Zt2Xy9Lp4Vb8Nc1Rd6Hf3Km0"].join("");
    const [seg] = segmentsOf([user(`use ${token} with computeInvoiceTotal2 and parseHTTPResponse2x, uuid 123e4567-e89b-12d3-a456-426614174000`)]);
    expect(seg!.text).toBe("use [REDACTED:token] with computeInvoiceTotal2 and parseHTTPResponse2x, uuid 123e4567-e89b-12d3-a456-426614174000");
  });
});
