/**
 * `node --import tsx bench/trim-trace.ts`: a diagnostic for bench/trim.ts's cold cases (not a
 * figure for the docs). Each round builds the cold SmartTrims as the bench does and times one
 * decision on each, split into its parts (absorb: the history's view; search: the query's
 * scorer; select: the choice, token estimates included, and the tokens alone; build: the
 * array sent), and lists the collector's pauses (PerformanceObserver "gc" entries) that fell
 * inside it. Prints the slowest decisions of each case with their split and pauses.
 * `TRIM_TRACE_ROUNDS` (60).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { PerformanceObserver, constants } from "node:perf_hooks";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { recallQueryOf } from "../src/agents/archive/recall-query.js";
import { SmartTrim, type TrimSettings } from "../src/agents/trim/smart-trim.js";
import { restartedTrim, seenTrim } from "./trim-setup.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const N = 2_000;
const ROUNDS = Number(process.env.TRIM_TRACE_ROUNDS ?? 60);
const FILES = ["badlogic__pi-mono__before-compaction.json", "badlogic__pi-mono__large-session.json", "marot__spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.json"];

const gcs: Array<{ start: number; dur: number; kind: string }> = [];
const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1;
    gcs.push({ start: e.startTime, dur: e.duration, kind: KINDS[kind] ?? String(kind) });
  }
}).observe({ entryTypes: ["gc"] });


interface Split {
  round: number;
  total: number;
  absorb: number;
  search: number;
  select: number;
  tokens: number;
  t0: number;
  t1: number;
  /** the main thread's time on a CPU and waiting for one (/proc schedstat), ms */
  run: number;
  wait: number;
}

/** The main thread's [on-CPU, waiting on the run queue] ns so far. */
function sched(): [number, number] {
  const [run, wait] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, "utf8").split(" ");
  return [Number(run), Number(wait)];
}

/** The timed call, named for --cpu-prof (the setup's applies are not under it). */
function decisionUnderTest(t: SmartTrim, req: Parameters<SmartTrim["apply"]>[0], s: TrimSettings): void {
  t.apply(req, s);
}

async function main() {
  const all: AgentMessage[] = [];
  for (const f of FILES) all.push(...(JSON.parse(readFileSync(resolve(TRANSCRIPTS_DIR, f), "utf8")) as AgentMessage[]));
  const base = all.slice(0, N).map((m, i) => ({ ...m, timestamp: 1_700_000_000_000 + i }) as AgentMessage);
  const total = base.reduce((a, m) => a + estimateTokens(m), 0);
  const settings: TrimSettings = { safeLimit: 200_000 - 16_384 - 1_000, headroom: 0.3, keepRecent: 6, marker: true };
  const { query, requestAt } = recallQueryOf(base);
  const seen = (q: string) => seenTrim(base, q, requestAt, settings);
  const restarted = () => restartedTrim(base, query);
  /** one decision on `t`, its parts timed by wrapping the instance's collaborators */
  const timed = (t: SmartTrim, tokens: number, round: number): Split => {
    const s: Split = { round, total: 0, absorb: 0, search: 0, select: 0, tokens: 0, t0: 0, t1: 0, run: 0, wait: 0 };
    // biome-ignore lint/suspicious/noExplicitAny: diagnostic reach into private collaborators
    const x = t as any;
    const wrap = (obj: Record<string, (...a: unknown[]) => unknown>, name: string, into: keyof Split) => {
      const f = obj[name]!.bind(obj);
      obj[name] = (...a: unknown[]) => {
        const a0 = performance.now();
        try {
          return f(...a);
        } finally {
          (s[into] as number) += performance.now() - a0;
        }
      };
    };
    wrap(x, "absorb", "absorb");
    wrap(x.relevance, "scorer", "search");
    wrap(x.select, "decide", "select");
    wrap(x.tokens, "tokensOf", "tokens");
    const k0 = sched();
    s.t0 = performance.now();
    decisionUnderTest(t, { messages: base, tokens, query, requestAt }, settings);
    s.t1 = performance.now();
    const k1 = sched();
    s.run = (k1[0] - k0[0]) / 1e6;
    s.wait = (k1[1] - k0[1]) / 1e6;
    s.total = s.t1 - s.t0;
    return s;
  };
  const cases: Record<string, Split[]> = { coldOver: [], coldNewQuery: [], coldWholeHistory: [] };
  for (let r = 0; r < ROUNDS; r++) {
    cases.coldOver!.push(timed(await seen(query), settings.safeLimit + 2_000, r));
    cases.coldNewQuery!.push(timed(await seen(""), settings.safeLimit + 2_000, r));
    cases.coldWholeHistory!.push(timed(await restarted(), total, r));
  }
  await new Promise((r) => setTimeout(r, 100));
  const f = (v: number) => v.toFixed(2).padStart(6);
  console.log(`gc entries: ${gcs.length}`);
  console.log(`load ${loadavg().map((v) => v.toFixed(2)).join(" ")}; ${ROUNDS} rounds; ms`);
  for (const [name, list] of Object.entries(cases)) {
    const sorted = [...list].sort((a, b) => a.total - b.total);
    const med = (k: (s: Split) => number) => f([...list.map(k)].sort((a, b) => a - b)[list.length >> 1]!);
    const preempted = list.filter((s) => s.wait > 0.05).length;
    const onCpu = list.map((s) => Math.max(0, s.total - s.wait)).sort((a, b) => a - b);
    console.log(`${name}: medians total ${med((s) => s.total)} absorb ${med((s) => s.absorb)} search ${med((s) => s.search)} select ${med((s) => s.select)} (tokens ${med((s) => s.tokens)}) build ${med((s) => s.total - s.absorb - s.search - s.select)}; preempted ${preempted}/${list.length}; wall-runq max ${f(onCpu.at(-1)!)} 2nd ${f(onCpu.at(-2)!)}; slowest:`);
    for (const s of sorted.slice(-6).reverse()) {
      const inside = gcs.filter((g) => g.start < s.t1 && g.start + g.dur > s.t0).map((g) => `${g.kind} ${g.dur.toFixed(2)}`);
      const build = s.total - s.absorb - s.search - s.select;
      console.log(`  round ${String(s.round).padStart(3)} total ${f(s.total)} absorb ${f(s.absorb)} search ${f(s.search)} select ${f(s.select)} (tokens ${f(s.tokens)}) build ${f(build)} | cpu ${f(s.run)} runq ${f(s.wait)} | gc: ${inside.join(", ") || "-"}`);
    }
  }
}

void main();
