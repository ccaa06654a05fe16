/**
 * Workspace drift timings (issue 17): recording at checkpoint time and comparing at restore, on a
 * real git repository in a temp dir (git is spawned to SET UP the repository only; the code under
 * test reads .git itself). Targets: record <= 5 ms for 30 files, compare <= 10 ms.
 *
 * Part of `npm run bench` (key `drift` in bench/results.json); alone: `npx tsx bench/drift.ts`
 * (writes bench/drift-results.json).
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { compareWorkspace, recordWorkspace } from "../src/agents/drift/record.js";
import { latencyStats } from "../src/replay/stats.js";
import { timeIt } from "./timer.js";

const ITERATIONS = 200;
const WARMUP = 20;
const SESSION_FILES = 30;
const ENV = { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@example.com", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@example.com", GIT_CONFIG_NOSYSTEM: "1" };

/** ~4 KiB of source-like text */
const body = (i: number) => Array.from({ length: 100 }, (_, l) => `export const value_${i}_${l} = ${i * 1000 + l}; // line ${l}`).join("\n") + "\n";

function repo(tracked: number): { dir: string; files: string[]; git: (...a: string[]) => void } {
  const dir = mkdtempSync(join(tmpdir(), "cm-bench-drift-"));
  const git = (...a: string[]) => void execFileSync("git", a, { cwd: dir, env: ENV, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  const files: string[] = [];
  for (let i = 0; i < tracked; i++) {
    const rel = `src/pkg${i % 10}/file${i}.ts`;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), body(i));
    files.push(rel);
  }
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "initial");
  return { dir, files, git };
}

const stats = async (fn: () => unknown) => latencyStats(await timeIt(ITERATIONS, WARMUP, fn));

export async function benchDrift() {
  const load0 = Math.round(loadavg()[0]! * 10) / 10;
  // 1. a session that edited 30 of 230 tracked files (tree dirty: the dirty check stops at the first edit)
  const a = repo(230);
  const session = a.files.slice(0, SESSION_FILES);
  for (const f of session) appendFileSync(join(a.dir, f), "// edited by the session\n");
  const record30 = await stats(() => recordWorkspace(a.dir, session));
  const snap = recordWorkspace(a.dir, session)!;
  const compareUnchanged = await stats(() => {
    if (compareWorkspace(snap).drifted) throw new Error("bench: unexpected drift");
  });
  // 2. the world moved: 3 files edited outside, 1 deleted, the work committed + 4 more commits
  for (const f of session.slice(0, 3)) appendFileSync(join(a.dir, f), "// outside\n");
  rmSync(join(a.dir, session[3]!));
  a.git("add", "-A");
  a.git("commit", "-q", "--no-gpg-sign", "-m", "c0");
  for (let i = 1; i <= 4; i++) {
    appendFileSync(join(a.dir, a.files[100 + i]!), `// c${i}\n`);
    a.git("commit", "-q", "--no-gpg-sign", "-am", `c${i}`);
  }
  const moved = compareWorkspace(snap);
  const compareMoved = await stats(() => compareWorkspace(snap));
  // 3. a clean tree of 1,000 tracked files: the dirty check stats every entry (its bound is 1,000)
  const b = repo(1000);
  const clean = recordWorkspace(b.dir, b.files.slice(0, SESSION_FILES))!;
  const compareClean1000 = await stats(() => compareWorkspace(clean));
  for (const d of [a.dir, b.dir]) rmSync(d, { recursive: true, force: true });
  return {
    /** 1-minute load average before and after: this machine is shared, medians move with it */
    loadAverage1m: [load0, Math.round(loadavg()[0]! * 10) / 10],
    method: `${ITERATIONS} iterations after ${WARMUP} warmups; files ~4 KiB; git repo set up with git, read by the code under test from .git`,
    targets: { recordMedianMs: 5, compareMedianMs: 10 },
    record30Files230Tracked: record30,
    compareUnchanged30Files: compareUnchanged,
    compareAfterEditsDeleteAnd5Commits: compareMoved,
    movedReport: { files: moved.files.map((f) => `${f.change}:${f.path}`), head: moved.git?.head ?? null, dirty: moved.git?.dirty ?? null },
    compareCleanTree1000Tracked: compareClean1000,
    recordedGit: snap.git,
    cleanTreeDirty: clean.git?.dirty ?? null,
  };
}

const invoked = process.argv[1] ? resolve(process.argv[1]) : "";
if (invoked === resolve(import.meta.dirname, "drift.ts")) {
  benchDrift()
    .then((r) => {
      const out = { date: new Date().toISOString(), node: process.version, ...r };
      writeFileSync(join(import.meta.dirname, "drift-results.json"), `${JSON.stringify(out, null, 1)}\n`);
      process.stderr.write(
        `drift: record ${r.record30Files230Tracked.median} ms (p99 ${r.record30Files230Tracked.p99}), compare unchanged ${r.compareUnchanged30Files.median} ms, ` +
          `after edits+commits ${r.compareAfterEditsDeleteAnd5Commits.median} ms, clean tree 1000 files ${r.compareCleanTree1000Tracked.median} ms\n`,
      );
    })
    .catch((e) => {
      process.stderr.write(`bench drift failed: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 1;
    });
}
