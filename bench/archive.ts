/**
 * `npm run bench:archive`: the archive of compacted context (docs/archive.md), written to
 * bench/archive-results.json.
 *
 * Corpus: the messages of the long recorded transcripts, cut into segments by the real
 * extractor (segmentsOf), cycled with a copy number so every segment is distinct, and
 * archived through SessionArchive.append in spans of 100 messages, as compactions do.
 * - append: one 100-message span, the part the compaction hook awaits (extraction and
 *   redaction, hashing, dedup, fsync'd append) into an archive of ~1k and ~20k segments,
 *   and separately the background indexing of that span that follows it;
 * - search: context_search's query path (limit 5) at 1k and 20k segments, queries are the
 *   transcripts' own user requests (first 400 chars);
 * - restart at 20k: loading the records, then the first search with the saved index
 *   file and without it (rebuild); the first append of a new process (ids scanned, no load);
 * - file bytes per 1,000 archived messages and the index size.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { SessionArchive } from "../src/agents/archive/archive.js";
import { segmentsOf } from "../src/agents/archive/segments.js";
import { appendToTail } from "../src/agents/archive/store.js";
import { userText } from "../src/agents/messages/read.js";
import { latencyStats } from "../src/replay/stats.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const REPO = resolve(import.meta.dirname, "..");
const SOURCES = [
  "badlogic__pi-mono__before-compaction.json",
  "badlogic__pi-mono__large-session.json",
  "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json",
];
const SPAN = 100;

function load(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const f of SOURCES) {
    try {
      out.push(...(JSON.parse(readFileSync(resolve(TRANSCRIPTS_DIR, f), "utf8")) as AgentMessage[]));
    } catch {
      // a missing transcript: the others still make a corpus
    }
  }
  if (out.length === 0) throw new Error(`no transcripts found in ${TRANSCRIPTS_DIR}`);
  return out;
}

/** Message i of an endless cycle; copy n > 0 gets a marker so its segments hash differently. */
function messageAt(src: readonly AgentMessage[], i: number): AgentMessage {
  const m = src[i % src.length]!;
  const copy = Math.floor(i / src.length);
  if (copy === 0) return m;
  const c = structuredClone(m) as { content?: unknown };
  if (typeof c.content === "string") c.content = `${c.content}\n(copy ${copy})`;
  else if (Array.isArray(c.content)) c.content.push({ type: "text", text: `(copy ${copy})` });
  return c as AgentMessage;
}

/** CPU milliseconds (user + system) since `start`: on a shared, loaded machine wall time mostly measures the queue. */
const cpuMs = (start: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

async function fill(
  archive: SessionArchive,
  src: readonly AgentMessage[],
  from: number,
  untilSegments: number,
): Promise<{ next: number; appendMs: number[]; appendCpuMs: number[]; indexCpuMs: number[] }> {
  const appendMs: number[] = [];
  const appendCpuMs: number[] = [];
  const indexCpuMs: number[] = [];
  let i = from;
  let c = 1;
  while (archive.size < untilSegments) {
    const span: AgentMessage[] = [];
    for (let k = 0; k < SPAN; k++) span.push(messageAt(src, i++));
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await archive.append(segmentsOf(span), { session: "bench", compaction: c++ });
    appendCpuMs.push(cpuMs(c0));
    appendMs.push(performance.now() - t0);
    const c1 = process.cpuUsage();
    await archive.indexInBackground();
    indexCpuMs.push(cpuMs(c1));
  }
  return { next: i, appendMs, appendCpuMs, indexCpuMs };
}

function searchTimes(archive: SessionArchive, queries: readonly string[], rounds: number): { wall: number[]; cpu: number[] } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      archive.search(q, { limit: 5 });
      cpu.push(cpuMs(c0));
      wall.push(performance.now() - t0);
    }
  }
  return { wall, cpu };
}

const both = (t: { wall: number[]; cpu: number[] }) => ({ wall: latencyStats(t.wall), cpu: latencyStats(t.cpu) });

async function main() {
  const loadStart = loadavg()[0];
  const src = load();
  const queries = src.map((m) => userText(m).slice(0, 400)).filter((q) => q.length > 0);
  const dir = mkdtempSync(join(tmpdir(), "cm-archive-bench-"));
  try {
    const limits = { maxSegments: 1_000_000, retentionDays: 3650 };
    const archive = new SessionArchive(dir, "bench:archive", limits);
    await archive.load();
    const first = await fill(archive, src, 0, 1_000);
    for (const q of queries.slice(0, 20)) archive.search(q); // warm-up
    const at1k = { segments: archive.size, search: both(searchTimes(archive, queries, 3)) };
    const append1k = { wall: latencyStats(first.appendMs.slice(1)), cpu: latencyStats(first.appendCpuMs.slice(1)), backgroundIndexCpu: latencyStats(first.indexCpuMs.slice(1)) };
    const messages1k = first.next;
    const bytes1k = statSync(archive.file).size;
    const second = await fill(archive, src, first.next, 20_000);
    const append20k = { wall: latencyStats(second.appendMs.slice(-20)), cpu: latencyStats(second.appendCpuMs.slice(-20)), backgroundIndexCpu: latencyStats(second.indexCpuMs.slice(-20)) };
    const appendAll = { wall: latencyStats([...first.appendMs.slice(1), ...second.appendMs]), cpu: latencyStats([...first.appendCpuMs.slice(1), ...second.appendCpuMs]) };
    const at20k = { segments: archive.size, search: both(searchTimes(archive, queries, 3)) };
    const fileBytes = statSync(archive.file).size;
    const messages = second.next;
    const indexBytes = archive.indexBytes();
    const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);

    // restart: a new process loads the records, then its first search loads the saved
    // index (written by the background indexer) or, without one, rebuilds it
    await archive.indexInBackground();
    const indexFileBytes = statSync(archive.indexFile).size;
    const firstSearchAfterRestart = async (): Promise<{ loadMs: number; loadCpuMs: number; firstSearchMs: number; firstSearchCpuMs: number }> => {
      const cold = new SessionArchive(dir, "bench:archive", limits);
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await cold.load();
      const loadMs = performance.now() - t0;
      const loadCpuMs = cpuMs(c0);
      const t1 = performance.now();
      const c1 = process.cpuUsage();
      cold.search(queries[0]!, { limit: 5 });
      const firstSearchMs = Math.round(performance.now() - t1);
      const firstSearchCpuMs = Math.round(cpuMs(c1));
      await cold.indexInBackground(); // its background save must not run into the next measurement
      return { loadMs: Math.round(loadMs), loadCpuMs: Math.round(loadCpuMs), firstSearchMs, firstSearchCpuMs };
    };
    const restartSaved = await firstSearchAfterRestart();
    rmSync(archive.indexFile);
    const restartRebuild = await firstSearchAfterRestart();
    // restart: the first compaction's append, before anything loaded the archive
    const coldSpan: AgentMessage[] = [];
    for (let k = 0; k < SPAN; k++) coldSpan.push(messageAt(src, second.next + k));
    const coldArchive = new SessionArchive(dir, "bench:archive", limits);
    const t2 = performance.now();
    const c2 = process.cpuUsage();
    await coldArchive.append(segmentsOf(coldSpan), { session: "bench", compaction: 0 });
    const firstAppendAfterRestart = { cpuMs: Math.round(cpuMs(c2) * 10) / 10, wallMs: Math.round((performance.now() - t2) * 10) / 10, loadedArchive: coldArchive.isLoaded };
    await coldArchive.indexInBackground();
    // restart with the ids scanned ahead of the compaction (an append of nothing): the append
    // reads only what was appended since
    const nextSpan: AgentMessage[] = [];
    for (let k = 0; k < SPAN; k++) nextSpan.push(messageAt(src, second.next + SPAN + k));
    const prefetched = new SessionArchive(dir, "bench:archive", limits);
    await appendToTail(dir, "bench:archive", [], { session: "bench", compaction: 0 }, limits);
    const t3 = performance.now();
    const c3 = process.cpuUsage();
    const prefetchedResult = await prefetched.append(segmentsOf(nextSpan), { session: "bench", compaction: 0 });
    const firstAppendAfterPrefetch = { cpuMs: Math.round(cpuMs(c3) * 10) / 10, wallMs: Math.round((performance.now() - t3) * 10) / 10, added: prefetchedResult.added, loadedArchive: prefetched.isLoaded };
    const coldLoadMs = restartSaved.loadMs;
    const coldLoadCpuMs = restartSaved.loadCpuMs;

    const loadEnd = loadavg()[0];
    const results = {
      date: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model ?? "?", cores: cpus().length, node: process.version, platform: `${platform()} ${release()}`, loadAverage1m: { start: loadStart, end: loadEnd } },
      engine: "BM25 postings (src/agents/archive/bm25.ts, in memory) + JSONL file",
      corpus: { transcripts: SOURCES, sourceMessages: src.length, queries: queries.length, spanMessages: SPAN },
      targets: { searchMedianMsAt20k: 10, appendSpanMs: 20 },
      appendSpanAllSizes: appendAll,
      at1k: { ...at1k, appendSpan: append1k, fileBytes: bytes1k, messages: messages1k },
      at20k: { ...at20k, appendSpan: append20k, fileBytes, messages, indexJsonBytes: indexBytes, heapMiB, coldLoadMs: Math.round(coldLoadMs), coldLoadCpuMs: Math.round(coldLoadCpuMs), indexFileBytes, restartWithSavedIndex: restartSaved, restartWithoutIndex: restartRebuild, firstAppendAfterRestart, firstAppendAfterPrefetch },
      bytesPer1000Messages: Math.round((fileBytes / messages) * 1000),
    };
    writeFileSync(resolve(REPO, "bench/archive-results.json"), `${JSON.stringify(results, null, 1)}\n`);
    console.log(JSON.stringify(results, null, 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
