/**
 * A/B of the breakdown between two checkouts (scratch, for docs/benchmarks.md#context-breakdown):
 * a 2,000-message request (bench/messages.ts), each later request fresh structuredClone'd copies
 * with two new messages; per request `warmCalls` then `breakdown`, each timed by the process's CPU
 * time (user + system: less sensitive than wall time to the other jobs on a shared machine).
 * KEYED=1 (default): a new RequestLog of one session key per request (the OpenClaw plugin's engine
 * per inbound message); KEYED=0: one log for every request (pi, `next` in bench/breakdown.ts).
 *
 * `ROOT=/work/main node --expose-gc --import tsx bench/breakdown-ab.ts` (ROOT: the checkout whose
 * src/ is timed), alternating the two checkouts.
 */
import { resolve } from "node:path";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { BENCH_SETTINGS as settings, breakdownFixture } from "./breakdown-fixture.js";

const ROOT = process.env.ROOT ?? resolve(import.meta.dirname, "..");
const KEYED = process.env.KEYED !== "0";
const { RequestLog } = (await import(`${ROOT}/src/agents/engine/request-log.ts`)) as typeof import("../src/agents/engine/request-log.js");
const { messages: source } = loadSourceMessages(resolve(import.meta.dirname, ".."));
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

const { request, nextCopy } = breakdownFixture(new MessageFactory(source), 2000);
const key = "breakdown-ab";
const first = new RequestLog(key);
first.record(request);
first.warmCalls();
first.breakdown(settings);
const warms: number[] = [];
const times: number[] = [];
for (let i = 0; i < 170; i++) {
  const log = KEYED ? new RequestLog(key) : first;
  log.record(nextCopy());
  const w = process.cpuUsage();
  log.warmCalls();
  const warm = cpuMs(w);
  const b = process.cpuUsage();
  log.breakdown(settings);
  const breakdown = cpuMs(b);
  if (i < 20) continue;
  warms.push(warm);
  times.push(breakdown);
}
console.log(`${ROOT} ${KEYED ? "keyed (new log per request)" : "one log"}: warmCalls median ${q(warms, 0.5).toFixed(3)} p95 ${q(warms, 0.95).toFixed(3)} ms; breakdown median ${q(times, 0.5).toFixed(3)} p95 ${q(times, 0.95).toFixed(3)} ms (CPU)`);
