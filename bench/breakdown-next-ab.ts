/**
 * `next` of bench/breakdown.ts alone, for an A/B between checkouts (docs/benchmarks.md#context-breakdown):
 * N messages (default 2,000), each request fresh structuredClone'd copies with two new messages,
 * recorded and its calls sized (warmCalls), then its breakdown timed by wall time and by the
 * process's CPU time; ITS requests after 30 of warm-up. KEY=<key>: the log of a session key.
 *
 * `ROOT=/work/main ITS=400 node --import tsx bench/breakdown-next-ab.ts` (ROOT: the checkout whose
 * src/ is timed), alternating the two checkouts through the lock.
 */
import { resolve } from "node:path";
import { loadavg } from "node:os";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { BENCH_SETTINGS as settings, breakdownFixture } from "./breakdown-fixture.js";

const repo = resolve(import.meta.dirname, "..");
const root = process.env.ROOT ?? repo;
const { RequestLog } = (await import(`${root}/src/agents/engine/request-log.ts`)) as typeof import("../src/agents/engine/request-log.js");
const { messages: source } = loadSourceMessages(repo);
const n = Number(process.env.N ?? 2000);
const its = Number(process.env.ITS ?? 300);
const { request, nextCopy } = breakdownFixture(new MessageFactory(source), n);
const log = new RequestLog(process.env.KEY ?? `bench-${Math.random()}`);
log.record(request);
log.warmCalls();
log.breakdown(settings);
const wall: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < its + 30; i++) {
  log.record(nextCopy());
  log.warmCalls();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  log.breakdown(settings);
  const t = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (i >= 30) { wall.push(t); cpu.push((c.user + c.system) / 1000); }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]!;
console.log(JSON.stringify({ n, median: +q(wall, 0.5).toFixed(3), p95: +q(wall, 0.95).toFixed(3), cpuMedian: +q(cpu, 0.5).toFixed(3), load: loadavg()[0] }));
