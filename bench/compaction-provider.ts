/**
 * The compaction provider's summarize (issue 39, src/openclaw-plugin/compaction-provider.ts):
 * what OpenClaw's compaction-safeguard waits on instead of a model call. Each timed call is a
 * compaction of a new session of 1,000 messages (the recorded transcript's messages, cycled),
 * through the plugin's entry as OpenClaw registers it: the before_compaction hook with the live
 * messages, then summarize (capture in one pass, the checkpoint built in memory and previewed,
 * the summary rendered). The checkpoint's durable write and the span's archive run after
 * summarize returns; they are settled between calls, outside the timing. The event loop's
 * delay is sampled over the timed calls, and the process's CPU time per call is recorded beside
 * the wall time (on a machine shared with other work the wall time is mostly waiting for a core).
 * `captureCpuMs`: the one-pass capture alone (ContextState.captureMessages of 1,000 new messages
 * into a new state, the largest part of summarize), CPU time, for a component figure that the
 * rest of the call's noise does not hide. `gcInCallMs` / `majorGcInCalls`: the collections that
 * started inside the timed calls (a `gc` PerformanceObserver), `slowestCalls`: the three slowest
 * calls' index (after the warm-up), wall, CPU and GC time.
 *
 * The input: each call's 1,000 messages are cloned just before it, so they sit in V8's young
 * generation, where a live history does not; until 2026-11-27 20:00 the first scavenge inside the
 * call copied all of them (the collections inside a call: 8.8-26.5 ms at the median, load 16-30;
 * docs/benchmarks.md keeps the earlier figures). Now two scavenges before each call, outside the
 * timing, promote them (inputPromoter; `BENCH_PROVIDER_INPUT=young` runs the earlier harness).
 * Run with `node --expose-gc --import tsx bench/compaction-provider.ts` for a full collection
 * before each call instead (no wait for its sweeping); measured, that takes every collection out of the calls but raises
 * their CPU time (the sweeping it leaves to helper threads), so the default run does not.
 * Target: p99 <= 50 ms.
 *
 * Part of `npm run bench` (key `compactionProvider` in bench/results.json); alone:
 * `npx tsx bench/compaction-provider.ts` (writes bench/provider-results.json).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { backgroundWritesSettled, spanArchivesSettled } from "../src/agents/engine/archive-hooks.js";
import { latencyStats } from "../src/replay/stats.js";
import { ContextState } from "../src/agents/state/context-state.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../src/agents/config/context-manager-config.js";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { inputPromoter, providerEntry } from "./plugin-harness.js";

const REPO = resolve(import.meta.dirname, "..");
const MESSAGES = 1_000;
const ITERATIONS = 100;
// V8 still optimizes the provider's code through the first ~30 calls (functions optimized per call,
// `--trace-opt`: 19 in calls 0-9, 6.6 in 10-19, 3.6 in 20-29, 1-2 from 40 on; the compiler threads'
// CPU is charged to the call), so 40 untimed calls reach the steady state
const WARMUP = 40;
const CAPTURE_ITERATIONS = 50;

/** CPU ms of one capture pass over `n` new messages into a new state, per iteration (after WARMUP). */
async function captureCpu(stateDir: string, factory: MessageFactory, n: number, iterations: number, promote: (() => void) | null): Promise<number[]> {
  const cpu: number[] = [];
  for (let i = 0; i < WARMUP + iterations; i++) {
    const messages = factory.take(n);
    const state = await ContextState.load({ stateDir, sessionKey: `bench-capture-${i}`, sessionId: "s", config: DEFAULT_CONTEXT_MANAGER_CONFIG, logger: { warn: () => undefined }, toolResultsFromMessages: { cwd: REPO } });
    promote?.();
    const c0 = process.cpuUsage();
    state.captureMessages(messages);
    const c = process.cpuUsage(c0);
    if (i >= WARMUP) cpu.push((c.user + c.system) / 1000);
  }
  return cpu;
}

interface GcEntry {
  start: number;
  ms: number;
  major: boolean;
}

/** Every collection of the run, from a `gc` PerformanceObserver (entries carry their start, so they are matched to the timed calls afterwards). */
function recordCollections(): { entries: GcEntry[]; stop(): void } {
  const entries: GcEntry[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      entries.push({ start: e.startTime, ms: e.duration, major: kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
    }
  });
  obs.observe({ entryTypes: ["gc"] });
  return { entries, stop: () => obs.disconnect() };
}

/** GC ms and major collections that started inside each [t0, t1] window. */
function collectionsIn(windows: Array<[number, number]>, entries: GcEntry[]): { ms: number[]; majors: number } {
  const ms: number[] = [];
  let majors = 0;
  for (const [t0, t1] of windows) {
    let sum = 0;
    for (const e of entries) {
      if (e.start < t0 || e.start > t1) continue;
      sum += e.ms;
      if (e.major) majors++;
    }
    ms.push(Math.round(sum * 100) / 100);
  }
  return { ms, majors };
}

export async function benchCompactionProvider(opts: { iterations?: number; messages?: number } = {}) {
  const iterations = opts.iterations ?? ITERATIONS;
  const n = opts.messages ?? MESSAGES;
  const load0 = Math.round(loadavg()[0]! * 10) / 10;
  const stateDir = mkdtempSync(join(tmpdir(), "cm-bench-provider-"));
  const { provider, hook } = providerEntry(stateDir);
  const { name, messages: source } = loadSourceMessages(REPO);
  const factory = new MessageFactory(source);
  const times: number[] = [];
  const cpu: number[] = [];
  const chars: number[] = [];
  const windows: Array<[number, number]> = [];
  // with `node --expose-gc`: collect the harness's garbage (the 1,000 cloned messages it builds per
  // call, the previous call's background write and archive) before each call, outside the timing
  const gc = (globalThis as { gc?: () => void }).gc;
  const promote = gc ? null : inputPromoter();
  const gcs = recordCollections();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let capture: number[] = [];
  try {
    for (let i = 0; i < WARMUP + iterations; i++) {
      const messages: AgentMessage[] = factory.take(n);
      hook({ messageCount: n, messages, sessionFile: `/sessions/bench-${i}.jsonl` }, { sessionKey: `agent:main:bench-provider-${i}` });
      gc?.();
      promote?.();
      if (i === WARMUP) loop.enable();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const text = await provider.summarize({ messages });
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (i >= WARMUP) {
        times.push(ms);
        cpu.push((c.user + c.system) / 1000);
        chars.push(text.length);
        windows.push([t0, t0 + ms]);
      }
      loop.disable();
      await backgroundWritesSettled();
      await spanArchivesSettled();
      if (i >= WARMUP) loop.enable();
    }
    capture = await captureCpu(join(stateDir, "capture"), factory, n, Math.min(iterations, CAPTURE_ITERATIONS), promote);
  } finally {
    loop.disable();
    gcs.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  await new Promise((r) => setImmediate(r)); // the observer's last entries
  const summarize = latencyStats(times);
  const inCalls = collectionsIn(windows, gcs.entries);
  return {
    transcript: name,
    messages: n,
    summarize,
    // this process's CPU time over the call (all its threads: the archive worker's too), for a loaded machine
    summarizeCpuMs: latencyStats(cpu),
    captureCpuMs: latencyStats(capture),
    // collections that started inside the timed calls: their pause per call, and how many were major
    gcInCallMs: latencyStats(inCalls.ms),
    majorGcInCalls: inCalls.majors,
    // the three slowest calls (`call`: the timed call's index, warm-up excluded): is their time collection, CPU of their own, or waiting for a core?
    slowestCalls: times
      .map((wallMs, i) => ({ call: i, wallMs: Math.round(wallMs * 10) / 10, cpuMs: Math.round(cpu[i]! * 10) / 10, gcMs: inCalls.ms[i]! }))
      .sort((a, b) => b.wallMs - a.wallMs)
      .slice(0, 3),
    gcBetweenCalls: gc !== undefined,
    // the call's input moved to the old generation before the call (inputPromoter), as a live history is
    inputPromoted: promote !== null,
    summaryChars: latencyStats(chars),
    loopDelayP99Ms: Math.round((loop.percentile(99) / 1e6) * 10) / 10,
    loopDelayMaxMs: Math.round((loop.max / 1e6) * 10) / 10,
    load: { before: load0, after: Math.round(loadavg()[0]! * 10) / 10 },
    target: { p99Ms: 50 },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchCompactionProvider();
  process.stderr.write(`${JSON.stringify(r)}\n`);
  writeFileSync(join(REPO, "bench", "provider-results.json"), `${JSON.stringify({ date: new Date().toISOString(), ...r }, null, 1)}\n`);
}
