/**
 * `npx tsx bench/trim.ts`: the cost of smart trim's decision (docs/archive.md#smart-trim),
 * written to bench/trim-results.json.
 *
 * Corpus: the recorded messages of the long transcripts (before-compaction, then
 * large-session), the first 2,000 (or all) of them, timestamps made distinct. Measured per
 * SmartTrim.apply call, CPU time (user + system) and wall, after the relevance index has
 * caught up (its indexing runs off the request path and is measured apart):
 * - steady: a request of 2,000 messages one message longer than the last, under safeLimit
 *   (the sticky trims of an earlier decision re-applied): what nearly every request costs;
 * - decide: a request over safeLimit that triggers a new trim decision (Layer 1 to 3);
 * - index: background indexing of one new message, and of all 2,000 at once (a restart).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { recallQueryOf } from "../src/agents/archive/recall-query.js";
import { SmartTrim, type TrimSettings } from "../src/agents/trim/smart-trim.js";
import { latencyStats } from "../src/replay/stats.js";

const REPO = resolve(import.meta.dirname, "..");
const N = 2_000;

function corpus(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const f of ["badlogic__pi-mono__before-compaction.json", "badlogic__pi-mono__large-session.json"]) {
    out.push(...(JSON.parse(readFileSync(resolve(REPO, "../shared/transcripts", f), "utf8")) as AgentMessage[]));
  }
  return out.slice(0, N).map((m, i) => ({ ...m, timestamp: 1_700_000_000_000 + i }) as AgentMessage);
}

const cpu = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

function main() {
  const all = corpus();
  const total = all.reduce((a, m) => a + estimateTokens(m), 0);
  const window = 200_000;
  const settings: TrimSettings = { safeLimit: window - 16_384 - 1_000, headroom: 0.3, keepRecent: 6, marker: true };
  const steadyCpu: number[] = [];
  const steadyWall: number[] = [];
  const decideCpu: number[] = [];
  const decideWall: number[] = [];
  const ROUNDS = 30;
  for (let r = 0; r < ROUNDS; r++) {
    const trim = new SmartTrim();
    const base = all.slice(0, N - 1);
    const q0 = recallQueryOf(base);
    trim.apply({ messages: base, tokens: 0, query: q0.query, requestAt: q0.requestAt }, settings); // first sight: queued for indexing
    trim.relevance.flush();
    // decide: over the limit
    const { query, requestAt } = recallQueryOf(base);
    let c0 = process.cpuUsage();
    let t0 = performance.now();
    const d = trim.apply({ messages: base, tokens: total, query, requestAt }, settings);
    decideWall.push(performance.now() - t0);
    decideCpu.push(cpu(c0));
    if (d.newlyTrimmed.length === 0) throw new Error("bench: no trim decided");
    // steady: one more message, under the limit, sticky trims re-applied
    const next = all.slice(0, N);
    const q = recallQueryOf(next);
    c0 = process.cpuUsage();
    t0 = performance.now();
    trim.apply({ messages: next, tokens: settings.safeLimit - 1, query: q.query, requestAt: q.requestAt }, settings);
    steadyWall.push(performance.now() - t0);
    steadyCpu.push(cpu(c0));
    trim.relevance.flush();
  }
  // background indexing: all at once (a restart), then one message
  const trim = new SmartTrim();
  const q = recallQueryOf(all);
  trim.apply({ messages: all.slice(0, N - 1), tokens: 0, query: q.query, requestAt: q.requestAt }, settings);
  let c0 = process.cpuUsage();
  trim.relevance.flush();
  const indexAll = cpu(c0);
  trim.apply({ messages: all, tokens: 0, query: q.query, requestAt: q.requestAt }, settings);
  c0 = process.cpuUsage();
  trim.relevance.flush();
  const indexOne = cpu(c0);
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg(), node: process.version },
    messages: N,
    historyTokens: total,
    rounds: ROUNDS,
    steady: { cpuMs: latencyStats(steadyCpu), wallMs: latencyStats(steadyWall) },
    decide: { cpuMs: latencyStats(decideCpu), wallMs: latencyStats(decideWall) },
    backgroundIndex: { allMessagesCpuMs: Math.round(indexAll), oneMessageCpuMs: Math.round(indexOne * 1000) / 1000 },
  };
  writeFileSync(resolve(REPO, "bench/trim-results.json"), `${JSON.stringify(result, null, 1)}\n`);
  console.log(JSON.stringify(result, null, 1));
}

main();
