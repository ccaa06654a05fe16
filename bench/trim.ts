/**
 * `npx tsx bench/trim.ts`: the cost of smart trim's decision (docs/archive.md#smart-trim),
 * written to bench/trim-results.json. Run it on a machine otherwise idle, or
 * quote the load it prints beside its figures.
 *
 * Corpus: the recorded messages of the long transcripts (pi-mono before-compaction, then
 * large-session, then marot spotter), timestamps made distinct: the first 2,000 are the
 * history, the rest (~370) arrive one per request. Measured per SmartTrim.apply call, with the
 * relevance index caught up as it is between requests (its indexing runs off the request path
 * and is measured apart). Each round:
 * - cold: the first decision on a 2,000-message history, never trimmed before, each on a
 *   fresh SmartTrim:
 *   - coldOver: 2,000 tokens over safeLimit (a 200k window), its query searched off the
 *     request path already;
 *   - coldNewQuery: the same with a query never searched (the search on the request path);
 *   - coldWholeHistory: all ~500k tokens of history over the limit at once, on a SmartTrim
 *     that read the history as after a restart (SmartTrim.catchUp, in slices; the last ≤ 256
 *     messages are read by the timed call, as they are in a restart, and not indexed yet);
 * - steady: after coldWholeHistory, the session goes on: one message more per request, the
 *   reading being what was sent last time plus the new message, at 2,000 to ~2,370 messages:
 *   - steadyRequest: every such request (almost all trim nothing new: sticky trims re-applied);
 *   - steadyDecision: those that made a new trim decision (one per round);
 * - index: background indexing of all 2,000 at once (a restart) and of one new message.
 * `TRIM_BENCH_ROUNDS` (121): the first round is the process's first decision of each kind (code
 * not compiled yet, the compiler's threads at work beside it: a one-time cost per process),
 * reported apart as `firstRound`; the stats are over the other rounds, so with the default a
 * cold case's p99 is over 120 samples (nearest rank: the second largest), not its max.
 * Per sample: wall time, the process's CPU time (all its threads: the collector's and the
 * compiler's helpers too), and, where Linux's /proc schedstat is readable, the main thread's
 * wait on the run queue during the call (it was runnable, another process had the CPU):
 * `onCpuMs` = the wall time between the two reads of that wait (the call and the reads
 * themselves, ~40 µs) less the wait, at most the call's wall time: the decision's own cost on
 * this shared machine, over- rather than underestimated; `preempted` how many samples waited at all. The collector's pauses inside a timed call are
 * counted (`gcPausesInside`, PerformanceObserver "gc" entries).
 * `TRIM_BENCH_SETTLE_MS` (0): a pause after each cold case's setup (which builds a 2,000-message
 * index, ~12 MB, just before the timed call); a diagnostic: the figures quoted in the docs are
 * with 0 unless they say otherwise. bench/trim-trace.ts splits a cold decision into its parts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { recallQueryOf } from "../src/agents/archive/recall-query.js";
import { SmartTrim, type TrimResult, type TrimSettings } from "../src/agents/trim/smart-trim.js";
import { latencyStats } from "../src/replay/stats.js";
import { restartedTrim, seenTrim } from "./trim-setup.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const REPO = resolve(import.meta.dirname, "..");
const N = 2_000;
const ROUNDS = Number(process.env.TRIM_BENCH_ROUNDS ?? 121);
const SETTLE_MS = Number(process.env.TRIM_BENCH_SETTLE_MS ?? 0);
const FILES = ["badlogic__pi-mono__before-compaction.json", "badlogic__pi-mono__large-session.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];

function corpus(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const f of FILES) out.push(...(JSON.parse(readFileSync(resolve(TRANSCRIPTS_DIR, f), "utf8")) as AgentMessage[]));
  return out.map((m, i) => ({ ...m, timestamp: 1_700_000_000_000 + i }) as AgentMessage);
}

const CASES = ["coldOver", "coldNewQuery", "coldWholeHistory", "steadyRequest", "steadyDecision"] as const;
type Case = (typeof CASES)[number];
const COLD = ["coldOver", "coldNewQuery", "coldWholeHistory"] as const;
const ONCE = new Set<Case>([...COLD, "steadyDecision"]);

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The main thread's wait on the run queue so far, ns (null: no /proc schedstat here). */
const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;
function runQueueNs(): number | null {
  try {
    return Number(readFileSync(SCHEDSTAT, "utf8").split(" ")[1]);
  } catch {
    return null;
  }
}

/** The collector's pauses on the main thread (start, end), to count those inside a timed call. */
const pauses: Array<[number, number]> = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ["gc"] });

interface Sample {
  round: number;
  wall: number;
  cpu: number;
  /** the main thread's run-queue wait between the two reads around the call (null: not measurable here) */
  wait: number | null;
  /** wall time between those reads (the call, the reads, the CPU time's) */
  bracket: number;
  t0: number;
  t1: number;
}

async function main() {
  const all = corpus();
  const tokensOf = new Map<AgentMessage, number>(all.map((m) => [m, estimateTokens(m)]));
  const sum = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + (tokensOf.get(m) ?? estimateTokens(m)), 0);
  const base = all.slice(0, N);
  const total = sum(base);
  const window = 200_000;
  const settings: TrimSettings = { safeLimit: window - 16_384 - 1_000, headroom: 0.3, keepRecent: 6, marker: true };
  const samples: Record<Case, Sample[]> = { coldOver: [], coldNewQuery: [], coldWholeHistory: [], steadyRequest: [], steadyDecision: [] };
  let round = 0;
  const timed = (fn: () => TrimResult, name: (r: TrimResult) => Case): TrimResult => {
    // the wait is read outside the timed call, and may fall just before or after it (a
    // preemption due is taken at a system call's return): the bracket times the reads too
    const b0 = performance.now();
    const q0 = runQueueNs();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = fn();
    const t1 = performance.now();
    const d = process.cpuUsage(c0);
    const q1 = runQueueNs();
    const b1 = performance.now();
    samples[name(r)].push({ round, wall: t1 - t0, cpu: (d.user + d.system) / 1000, wait: q0 === null || q1 === null ? null : (q1 - q0) / 1e6, bracket: b1 - b0, t0, t1 });
    return r;
  };
  const { query, requestAt } = recallQueryOf(base);
  const seen = (q: string) => seenTrim(base, q, requestAt, settings, SETTLE_MS);
  const restarted = () => restartedTrim(base, query, SETTLE_MS);
  for (; round < ROUNDS; round++) {
    const over = await seen(query);
    timed(() => over.apply({ messages: base, tokens: settings.safeLimit + 2_000, query, requestAt }, settings), () => "coldOver");
    const fresh = await seen("");
    timed(() => fresh.apply({ messages: base, tokens: settings.safeLimit + 2_000, query, requestAt }, settings), () => "coldNewQuery");
    const trim = await restarted();
    let last = timed(() => trim.apply({ messages: base, tokens: total, query, requestAt }, settings), () => "coldWholeHistory");
    if (last.newlyTrimmed.length === 0) throw new Error("bench: no trim");
    // the session goes on: one message per request, the reading = what was sent + the new one
    for (let n = N + 1; n <= all.length; n++) {
      const messages = all.slice(0, n);
      const q = recallQueryOf(messages);
      const tokens = sum(last.messages) + sum(messages.slice(n - 1));
      last = timed(
        () => trim.apply({ messages, tokens, query: q.query, requestAt: q.requestAt }, settings),
        (res) => (res.newlyTrimmed.length > 0 ? "steadyDecision" : "steadyRequest"),
      );
      await tick(); // indexing and the query's search run here, between requests
      await tick();
    }
  }
  await new Promise<void>((resolve) => setTimeout(resolve, 50)); // the last "gc" entries
  // background indexing: all at once (a restart), then one message
  const trim = new SmartTrim();
  trim.apply({ messages: base.slice(0, N - 1), tokens: 0, query, requestAt }, settings);
  let c0 = process.cpuUsage();
  trim.relevance.flush();
  let d = process.cpuUsage(c0);
  const indexAll = (d.user + d.system) / 1000;
  trim.apply({ messages: base, tokens: 0, query, requestAt }, settings);
  c0 = process.cpuUsage();
  trim.relevance.flush();
  d = process.cpuUsage(c0);
  const indexOne = (d.user + d.system) / 1000;
  const statsOf = (list: readonly Sample[]) => {
    const waits = list.filter((s) => s.wait !== null);
    return {
      wallMs: latencyStats(list.map((s) => s.wall)),
      cpuMs: latencyStats(list.map((s) => s.cpu)),
      ...(waits.length === list.length ? { onCpuMs: latencyStats(list.map((s) => Math.min(s.wall, Math.max(0, s.bracket - s.wait!)))), preempted: waits.filter((s) => s.wait! > 0.05).length, runQueueMaxMs: latencyStats(waits.map((s) => s.wait!)).max } : {}),
      gcPausesInside: pauses.filter(([a, b]) => list.some((s) => a < s.t1 && b > s.t0)).length,
    };
  };
  // the first round apart for the cases that happen once per round (their first is the process's first)
  const counted = (k: Case) => (ONCE.has(k) ? samples[k].filter((s) => s.round > 0) : samples[k]);
  const stats = Object.fromEntries(CASES.map((k) => [k, statsOf(counted(k))])) as Record<Case, ReturnType<typeof statsOf>>;
  const firstRound = Object.fromEntries([...ONCE].map((k) => [k, samples[k].filter((s) => s.round === 0).map((s) => ({ wallMs: round4(s.wall), cpuMs: round4(s.cpu), runQueueMs: s.wait === null ? null : round4(s.wait) }))]));
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg(), node: process.version },
    messages: { history: N, upTo: all.length },
    historyTokens: total,
    safeLimit: settings.safeLimit,
    rounds: ROUNDS,
    settleMs: SETTLE_MS,
    steadyDecisionsPerRound: samples.steadyDecision.length / ROUNDS,
    ...stats,
    firstRound,
    backgroundIndex: { allMessagesCpuMs: Math.round(indexAll), oneMessageCpuMs: Math.round(indexOne * 1000) / 1000 },
  };
  writeFileSync(resolve(REPO, "bench/trim-results.json"), `${JSON.stringify(result, null, 1)}\n`);
  const f = (s: { median: number; p99: number; max: number }) => `${s.median} / ${s.p99} / ${s.max}`;
  const lines = CASES.map((k) => {
    const s = stats[k];
    const on = s.onCpuMs ? `  on CPU ${f(s.onCpuMs)} (preempted ${s.preempted})` : "";
    return `${k.padEnd(17)} n=${String(s.wallMs.n).padStart(5)}  wall ${f(s.wallMs)}${on}  CPU ${f(s.cpuMs)}  gc inside ${s.gcPausesInside}`;
  });
  const first = [...ONCE].map((k) => `${k}: ${firstRound[k]!.map((s) => s.wallMs).join(", ")}`).join("; ");
  console.log([`load ${loadavg().map((v) => v.toFixed(2)).join(" ")} (median / p99 / max, ms)`, ...lines, `first round (wall): ${first}`, JSON.stringify(result.backgroundIndex)].join("\n"));
}

function round4(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}

void main();
