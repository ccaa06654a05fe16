import { spawn, type ChildProcess } from "node:child_process";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { listCheckpoints, readCheckpointFile } from "../../src/agents/checkpoint/files.js";
import { parseCheckpointFileName } from "../../src/agents/checkpoint/ids.js";
import { POINTER_FILE } from "../../src/agents/checkpoint/files.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { readLatestPointer } from "../../src/agents/checkpoint/sessions.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { makeDraft, makeTempDir, removeDir } from "./helpers.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(HERE, "fixtures", "writer.ts");
const ROOT = path.resolve(HERE, "..", "..");
const KEY = "agent:main:telegram:42";

function startWriter(stateDir: string, count: number | "forever", tag: string, retention: number, mode: "oneshot" | "engine" = "oneshot") {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, stateDir, KEY, String(count), tag, String(retention), mode], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => (out.startsWith("ready\n") ? resolve() : undefined);
    child.stdout.on("data", check);
    child.once("exit", () => (out.startsWith("ready\n") ? resolve() : reject(new Error(`writer exited before ready: ${err}`))));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, ready, exited, output: () => out, errors: () => err };
}

const ids = (out: string) => writes(out).map((w) => w.id);
/** `<id> <start> <end>` lines of a writer's output */
function writes(out: string): Array<{ id: string; n: number; start: number; end: number }> {
  return out
    .split("\n")
    .filter((l) => l.startsWith("cp_"))
    .map((l) => {
      const [id = "", start = "0", end = "0"] = l.split(" ");
      return { id, n: Number(id.slice(3)), start: Number(start), end: Number(end) };
    });
}

let stateDir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  stateDir = await makeTempDir("cp-conc-");
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await removeDir(stateDir);
});

describe("concurrent and crashing writers", () => {
  it("two processes writing 50 checkpoints each for the same key: 100 distinct files, unique ids, valid pointer", async () => {
    const a = startWriter(stateDir, 50, "A", 1000);
    const b = startWriter(stateDir, 50, "B", 1000);
    children.push(a.child, b.child);
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    expect([codeA, codeB, a.errors(), b.errors()]).toEqual([0, 0, "", ""]);
    const all = [...ids(a.output()), ...ids(b.output())];
    expect(all).toHaveLength(100);
    expect(new Set(all).size).toBe(100);
    const files = await listCheckpoints({ stateDir }, KEY);
    expect(files).toHaveLength(100);
    const topics = new Set<string>();
    for (const f of files) topics.add((await readCheckpointFile(f.path, KEY)).working.topic.split(" ").slice(0, 2).join(" "));
    expect(topics.size).toBe(100); // no write replaced another one
    const pointer = await readLatestPointer({ stateDir }, KEY);
    expect(pointer).not.toBeNull();
    await readCheckpointFile(pointer!.path, KEY);
    const latest = await readLatestCheckpoint({ stateDir }, KEY);
    expect(latest?.meta.checkpoint_id).toBe(files.at(-1)?.id);
  }, 3 * TEST_TIMEOUT_MS);

  it("SIGKILL during a write loop, 15 times: every cp file parses, pointer valid, ids never reused", async () => {
    const seen: string[] = [];
    const dir = checkpointSessionDir(stateDir, KEY);
    for (let round = 0; round < 15; round++) {
      const w = startWriter(stateDir, "forever", `R${round}`, 4);
      children.push(w.child);
      await w.ready;
      // killed mid-loop once it has written: on a loaded machine a fixed delay can end before the
      // first write, and then the round checks nothing (the test's timeout bounds a writer that never writes)
      while (ids(w.output()).length === 0 && w.child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
      w.child.kill("SIGKILL");
      await w.exited;
      seen.push(...ids(w.output()));

      for (const name of await fsp.readdir(dir)) {
        if (name === POINTER_FILE) continue;
        const parsed = parseCheckpointFileName(name);
        if (!parsed) {
          expect(name).toMatch(/^\..*\.tmp$/); // a temp file left by the kill, never named like a checkpoint
          continue;
        }
        await readCheckpointFile(path.join(dir, name), KEY); // throws if torn
      }
      const pointer = await readLatestPointer({ stateDir }, KEY);
      if (pointer) await readCheckpointFile(pointer.path, KEY);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    const files = await listCheckpoints({ stateDir }, KEY);
    // stale temp files are not checkpoints
    expect(files.every((f) => /^cp_\d{3,}\.yaml$/.test(path.basename(f.path)))).toBe(true);
    const after = await writeCheckpoint({ stateDir, retention: 4 }, makeDraft({ sessionKey: KEY, topic: "after the storm" }));
    expect(after.written).toBe(true);
    if (after.written) {
      const lastSeen = Math.max(...seen.map((id) => Number(id.slice(3))));
      expect(Number(after.id.slice(3))).toBeGreaterThan(lastSeen);
    }
    expect((await readLatestCheckpoint({ stateDir }, KEY))?.working.topic).toBe("after the storm");
  }, 3 * TEST_TIMEOUT_MS);

  // issue 11 item 3: with retention, a writer that listed the directory before another writer
  // published (and pruned) past it used to re-create a pruned id: one cp_NNN named two checkpoints,
  // and the newest checkpoint could get an id lower than an older one's
  for (const mode of ["oneshot", "engine"] as const) {
    it(`4 processes (${mode} writers) x 40 checkpoints, retention 5: every id published once, ids follow publish order, newest restored`, async () => {
      const ws = ["A", "B", "C", "D"].map((tag) => startWriter(stateDir, 40, tag, 5, mode));
      children.push(...ws.map((w) => w.child));
      const codes = await Promise.all(ws.map((w) => w.exited));
      expect([codes, ws.map((w) => w.errors())]).toEqual([[0, 0, 0, 0], ["", "", "", ""]]);
      const all = ws.flatMap((w) => writes(w.output()));
      expect(all).toHaveLength(160);
      const dupes = all.map((w) => w.id).filter((id, i, a) => a.indexOf(id) !== i);
      expect(dupes).toEqual([]);
      // a write that finished before another one started has the lower id. Each process's clock
      // is its performance.timeOrigin (sampled from a millisecond wall clock) plus a monotonic
      // offset, so two processes' readings can disagree by up to ~1 ms: pairs closer than that
      // are not ordered
      const CLOCK_SLACK_MS = 1.5;
      const byEnd = [...all].sort((a, b) => a.end - b.end);
      const inversions: string[] = [];
      for (const later of all) {
        for (const earlier of byEnd) {
          if (earlier.end + CLOCK_SLACK_MS >= later.start) break;
          if (earlier.n >= later.n) inversions.push(`${earlier.id} done ${(later.start - earlier.end).toFixed(3)} ms before ${later.id} started`);
        }
      }
      expect(inversions.slice(0, 5)).toEqual([]);
      expect((await readLatestCheckpoint({ stateDir }, KEY))?.meta.checkpoint_id).toBe(all.reduce((a, b) => (b.n > a.n ? b : a)).id);
      expect((await listCheckpoints({ stateDir }, KEY)).length).toBeLessThanOrEqual(5 + 4);
    }, 3 * TEST_TIMEOUT_MS);
  }
});
