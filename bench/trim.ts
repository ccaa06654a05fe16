/**
 * `npx tsx bench/trim.ts`: the cost of smart trim's decision (docs/archive.md#smart-trim),
 * written to bench/trim-results.json. Run it through the lock (`/work/tools/locked`) and
 * quote the load it prints beside its figures.
 *
 * Corpus: the recorded messages of the long transcripts (pi-mono before-compaction, then
 * large-session, then marot spotter), timestamps made distinct: the first 2,000 are the
 * history, the rest (~370) arrive one per request. Measured per SmartTrim.apply call, CPU time
 * (user + system) and wall, with the relevance index caught up as it is between requests (its
 * indexing runs off the request path and is measured apart). Each round:
 * - cold: the first decision on a 2,000-message history, never trimmed before:
 *   - coldOver: 2,000 tokens over safeLimit (a 200k window), its query searched off the
 *     request path already;
 *   - coldNewQuery: the same with a query never searched (the search on the request path);
 *   - coldWholeHistory: all ~500k tokens of history over the limit at once (a restart);
 * - steady: after coldWholeHistory, the session goes on: one message more per request, the
 *   reading being what was sent last time plus the new message, at 2,000 to ~2,370 messages:
 *   - steadyRequest: every such request (almost all trim nothing new: sticky trims re-applied);
 *   - steadyDecision: those that made a new trim decision (the reading crossed safeLimit again);
 * - index: background indexing of all 2,000 at once (a restart) and of one new message.
 * `TRIM_BENCH_ROUNDS` (20) sets the rounds. With 20 rounds the cold cases' p99 is their max,
 * which is the first round's (the process's first decision runs code not compiled yet, the
 * compiler's threads at work beside it): `afterFirstRound` gives the cold cases' stats
 * without it, `firstRound` its values.
 * `TRIM_BENCH_SETTLE_MS` (0): a pause after each cold case's setup (which builds a 2,000-message
 * index, ~12 MB, just before the timed call), so the collector's work on that garbage is done
 * before the decision is timed, as it is in a session whose history was indexed turns earlier;
 * a diagnostic: the figures quoted in the docs are with 0 unless they say otherwise.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { recallQueryOf } from "../src/agents/archive/recall-query.js";
import { SmartTrim, type TrimResult, type TrimSettings } from "../src/agents/trim/smart-trim.js";
import { latencyStats } from "../src/replay/stats.js";

const REPO = resolve(import.meta.dirname, "..");
const N = 2_000;
const ROUNDS = Number(process.env.TRIM_BENCH_ROUNDS ?? 20);
const SETTLE_MS = Number(process.env.TRIM_BENCH_SETTLE_MS ?? 0);
const FILES = ["badlogic__pi-mono__before-compaction.json", "badlogic__pi-mono__large-session.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];

function corpus(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const f of FILES) out.push(...(JSON.parse(readFileSync(resolve(REPO, "../shared/transcripts", f), "utf8")) as AgentMessage[]));
  return out.map((m, i) => ({ ...m, timestamp: 1_700_000_000_000 + i }) as AgentMessage);
}

const CASES = ["coldOver", "coldNewQuery", "coldWholeHistory", "steadyRequest", "steadyDecision"] as const;
type Case = (typeof CASES)[number];

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function main() {
  const all = corpus();
  const tokensOf = new Map<AgentMessage, number>(all.map((m) => [m, estimateTokens(m)]));
  const sum = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + (tokensOf.get(m) ?? estimateTokens(m)), 0);
  const base = all.slice(0, N);
  const total = sum(base);
  const window = 200_000;
  const settings: TrimSettings = { safeLimit: window - 16_384 - 1_000, headroom: 0.3, keepRecent: 6, marker: true };
  const cpuMs: Record<Case, number[]> = { coldOver: [], coldNewQuery: [], coldWholeHistory: [], steadyRequest: [], steadyDecision: [] };
  const wallMs: Record<Case, number[]> = { coldOver: [], coldNewQuery: [], coldWholeHistory: [], steadyRequest: [], steadyDecision: [] };
  const timed = (fn: () => TrimResult, name: (r: TrimResult) => Case): TrimResult => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = fn();
    const wall = performance.now() - t0;
    const d = process.cpuUsage(c0);
    const k = name(r);
    wallMs[k].push(wall);
    cpuMs[k].push((d.user + d.system) / 1000);
    return r;
  };
  const { query, requestAt } = recallQueryOf(base);
  /** a SmartTrim that has seen the history (indexed, `q` searched off the request path) */
  const seen = async (q: string) => {
    const t = new SmartTrim();
    t.apply({ messages: base, tokens: 0, query: q, requestAt }, settings);
    t.relevance.flush();
    for (let k = 0; k < 5; k++) await tick();
    if (SETTLE_MS > 0) await new Promise<void>((resolve) => setTimeout(resolve, SETTLE_MS));
    return t;
  };
  let decisions = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const over = await seen(query);
    timed(() => over.apply({ messages: base, tokens: settings.safeLimit + 2_000, query, requestAt }, settings), () => "coldOver");
    const fresh = await seen("");
    timed(() => fresh.apply({ messages: base, tokens: settings.safeLimit + 2_000, query, requestAt }, settings), () => "coldNewQuery");
    const trim = await seen(query);
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
      if (last.newlyTrimmed.length > 0) decisions++;
      await tick(); // indexing and the query's search run here, between requests
      await tick();
    }
  }
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
  const stats = Object.fromEntries(CASES.map((k) => [k, { cpuMs: latencyStats(cpuMs[k]), wallMs: latencyStats(wallMs[k]) }])) as Record<Case, { cpuMs: ReturnType<typeof latencyStats>; wallMs: ReturnType<typeof latencyStats> }>;
  const COLD = ["coldOver", "coldNewQuery", "coldWholeHistory"] as const;
  const afterFirstRound = Object.fromEntries(COLD.map((k) => [k, { cpuMs: latencyStats(cpuMs[k].slice(1)), wallMs: latencyStats(wallMs[k].slice(1)) }]));
  const firstRound = Object.fromEntries(COLD.map((k) => [k, { cpuMs: cpuMs[k][0], wallMs: wallMs[k][0] }]));
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg(), node: process.version },
    messages: { history: N, upTo: all.length },
    historyTokens: total,
    safeLimit: settings.safeLimit,
    rounds: ROUNDS,
    settleMs: SETTLE_MS,
    steadyDecisionsPerRound: decisions / ROUNDS,
    ...stats,
    afterFirstRound,
    firstRound,
    backgroundIndex: { allMessagesCpuMs: Math.round(indexAll), oneMessageCpuMs: Math.round(indexOne * 1000) / 1000 },
  };
  writeFileSync(resolve(REPO, "bench/trim-results.json"), `${JSON.stringify(result, null, 1)}\n`);
  const f = (s: { median: number; p99: number; max: number }) => `${s.median} / ${s.p99} / ${s.max}`;
  const lines = CASES.map((k) => `${k.padEnd(17)} n=${String(stats[k].cpuMs.n).padStart(5)}  CPU ${f(stats[k].cpuMs)}  wall ${f(stats[k].wallMs)}`);
  const rest = COLD.map((k) => `${k.padEnd(17)} rounds 2+: wall ${f(afterFirstRound[k]!.wallMs)}, first round ${(firstRound[k]!.wallMs ?? 0).toFixed(2)}`);
  console.log([`load ${loadavg().map((v) => v.toFixed(2)).join(" ")} (median / p99 / max, ms)`, ...lines, ...rest, JSON.stringify(result.backgroundIndex)].join("\n"));
}

void main();
