/**
 * `node --expose-gc --import tsx bench/archive-weight.ts`: heap bytes of a loaded, indexed archive per byte of its
 * `segments.jsonl`, the weight the archive worker's memory budget gives a loaded archive
 * (LOADED_BYTES_PER_FILE_BYTE in src/agents/archive/worker/archive-worker.ts). Archives of ~1k, ~5k and ~20k segments
 * are filled from the recorded transcripts (as bench/archive.ts does); each is then loaded and searched once in a
 * fresh child process, and the heap measured after a forced collection before and after.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { SessionArchive } from "../src/agents/archive/archive.js";
import { segmentsOf } from "../src/agents/archive/segments.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const SOURCES = [
  "badlogic__pi-mono__before-compaction.json",
  "badlogic__pi-mono__large-session.json",
  "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json",
];
const LIMITS = { maxSegments: 1_000_000, retentionDays: 3650 };
const open = (dir: string) => new SessionArchive(dir, "bench:archive", LIMITS);

async function fill(dir: string, segments: number): Promise<void> {
  const src: AgentMessage[] = SOURCES.flatMap((f) => JSON.parse(readFileSync(resolve(TRANSCRIPTS_DIR, f), "utf8")));
  // copy n > 0 of a message gets a marker so its segments hash differently (as bench/archive.ts)
  const at = (i: number): AgentMessage => {
    const copy = Math.floor(i / src.length);
    const m = structuredClone(src[i % src.length]!) as { content?: unknown };
    if (copy > 0 && typeof m.content === "string") m.content = `${m.content}\n(copy ${copy})`;
    else if (copy > 0 && Array.isArray(m.content)) m.content.push({ type: "text", text: `(copy ${copy})` });
    return m as AgentMessage;
  };
  const archive = open(dir);
  await archive.load();
  for (let i = 0, c = 1; archive.size < segments; c++) {
    const span: AgentMessage[] = [];
    for (let k = 0; k < 100; k++) span.push(at(i++));
    await archive.append(segmentsOf(span), { session: "bench", compaction: c });
  }
  await archive.indexInBackground();
}

async function weigh(dir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");
  const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
  const before = heap();
  const archive = open(dir);
  await archive.load();
  archive.search("compaction summary tokens");
  const bytes = heap() - before;
  const fileBytes = statSync(archive.file).size;
  const heapMiB = +(bytes / 2 ** 20).toFixed(1);
  console.log(JSON.stringify({ segments: archive.size, fileBytes, heapMiB, perFileByte: +(bytes / fileBytes).toFixed(2) }));
}

if (process.argv[2] === "--weigh") await weigh(process.argv[3]!);
else {
  for (const segments of [1_000, 5_000, 20_000]) {
    const dir = mkdtempSync(join(tmpdir(), "cm-archive-weight-"));
    try {
      await fill(dir, segments);
      const args = ["--expose-gc", "--import", "tsx", import.meta.filename, "--weigh", dir];
      process.stdout.write(execFileSync(process.execPath, args, { encoding: "utf8" }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
