/**
 * The checkpoint's git state (src/agents/drift/record.ts readGitState) on this repository's own
 * checkout: CPU ms per reading with every reading a whole-tree scan (the clean-reading reuse
 * forgotten before each) and with a clean reading reused (src/agents/drift/git-index.ts).
 * The scan is one lstat per index entry only when the tree is clean (a dirty tree's scan stops at
 * its first change): commit first. `npx tsx bench/git-state.ts`
 */
import { resolve } from "node:path";
import { readGitState } from "../src/agents/drift/record.js";
import { processServices } from "../src/infra/process-services.js";
import { latencyStats } from "../src/replay/stats.js";

const REPO = resolve(import.meta.dirname, "..");
const N = 200;

function cpuPerReading(forget: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < 20 + N; i++) {
    if (forget) processServices().cleanReadings?.clear();
    const c0 = process.cpuUsage();
    readGitState(REPO, []);
    const c = process.cpuUsage(c0);
    if (i >= 20) out.push((c.user + c.system) / 1000);
  }
  return out;
}

const state = readGitState(REPO, []);
const scan = latencyStats(cpuPerReading(true));
const reused = latencyStats(cpuPerReading(false));
process.stdout.write(`${JSON.stringify({ dirty: state?.dirty ?? null, wholeTreeScanCpuMs: scan, reusedCpuMs: reused })}\n`);
