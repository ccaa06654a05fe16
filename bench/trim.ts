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
 * - decide: a request 2,000 tokens over safeLimit (a 200k window) that triggers a new trim
 *   decision (Layer 1 to 3), its query searched off the request path already;
 * - decideNewQuery: the same with a query never searched (the search on the request path);
 * - decideWholeHistory: all ~500k tokens of history over the limit at once (no earlier trim);
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

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function main() {
  const all = corpus();
  const total = all.reduce((a, m) => a + estimateTokens(m), 0);
  const window = 200_000;
  const settings: TrimSettings = { safeLimit: window - 16_384 - 1_000, headroom: 0.3, keepRecent: 6, marker: true };
  const cases = { steady: [] as number[], decide: [] as number[], decideNewQuery: [] as number[], decideWholeHistory: [] as number[] };
  const walls = { steady: [] as number[], decide: [] as number[], decideNewQuery: [] as number[], decideWholeHistory: [] as number[] };
  const time = (name: keyof typeof cases, fn: () => unknown) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    walls[name].push(performance.now() - t0);
    cases[name].push(cpu(c0));
  };
  const ROUNDS = 30;
  const base = all.slice(0, N - 1);
  const { query, requestAt } = recallQueryOf(base);
  const over = settings.safeLimit + 2_000;
  for (let r = 0; r < ROUNDS; r++) {
    // a session seen before: history indexed, the request's query searched off the request path
    const trim = new SmartTrim();
    trim.apply({ messages: base, tokens: 0, query, requestAt }, settings);
    trim.relevance.flush();
    for (let k = 0; k < 5; k++) await tick();
    time("decide", () => {
      if (trim.apply({ messages: base, tokens: over, query, requestAt }, settings).newlyTrimmed.length === 0) throw new Error("bench: no trim");
    });
    const next = all.slice(0, N);
    const q = recallQueryOf(next);
    time("steady", () => trim.apply({ messages: next, tokens: settings.safeLimit - 1, query: q.query, requestAt: q.requestAt }, settings));
    // a query never searched (a new request that needs a trim at once)
    const fresh = new SmartTrim();
    fresh.apply({ messages: base, tokens: 0, query: "", requestAt }, settings);
    fresh.relevance.flush();
    time("decideNewQuery", () => fresh.apply({ messages: base, tokens: over, query, requestAt }, settings));
    // the whole history over the limit at once (no earlier trim: a restart on a long session)
    const cold = new SmartTrim();
    cold.apply({ messages: base, tokens: 0, query, requestAt }, settings);
    cold.relevance.flush();
    for (let k = 0; k < 5; k++) await tick();
    time("decideWholeHistory", () => cold.apply({ messages: base, tokens: total, query, requestAt }, settings));
  }
  // background indexing: all at once (a restart), then one message
  const trim = new SmartTrim();
  trim.apply({ messages: base, tokens: 0, query, requestAt }, settings);
  let c0 = process.cpuUsage();
  trim.relevance.flush();
  const indexAll = cpu(c0);
  trim.apply({ messages: all.slice(0, N), tokens: 0, query, requestAt }, settings);
  c0 = process.cpuUsage();
  trim.relevance.flush();
  const indexOne = cpu(c0);
  const stats = (k: keyof typeof cases) => ({ cpuMs: latencyStats(cases[k]), wallMs: latencyStats(walls[k]) });
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg(), node: process.version },
    messages: N,
    historyTokens: total,
    safeLimit: settings.safeLimit,
    rounds: ROUNDS,
    steady: stats("steady"),
    decide: stats("decide"),
    decideNewQuery: stats("decideNewQuery"),
    decideWholeHistory: stats("decideWholeHistory"),
    backgroundIndex: { allMessagesCpuMs: Math.round(indexAll), oneMessageCpuMs: Math.round(indexOne * 1000) / 1000 },
  };
  writeFileSync(resolve(REPO, "bench/trim-results.json"), `${JSON.stringify(result, null, 1)}\n`);
  const brief = (k: keyof typeof cases) => `${k}: CPU median ${result[k].cpuMs.median} ms, p99 ${result[k].cpuMs.p99} ms; wall median ${result[k].wallMs.median} ms`;
  console.log([`load ${loadavg().map((v) => v.toFixed(1)).join(" ")}`, brief("steady"), brief("decide"), brief("decideNewQuery"), brief("decideWholeHistory"), JSON.stringify(result.backgroundIndex)].join("\n"));
}

void main();
