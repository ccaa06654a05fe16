/**
 * The context breakdown's cost (issue 27): computeBreakdown over a request of N messages (a
 * real transcript cycled, with its recorded usage; 1 in 10 tool results swapped as aged offload
 * would), the system prompt and four tool schemas. Computed off the request path (on /context,
 * at a checkpoint write, after a request for the gauge phrase); what the request path does is
 * RequestLog.record, timed too. After each request the log sizes that request's new tool calls
 * (RequestLog.warmCalls, off the path): `first` is a session's first breakdown after it,
 * `sizeHistoryMs` that sizing for a whole history (once per session), `sizeNewMs` for two new
 * messages (every later request); `unsized` is a breakdown with no sizes known, for reference;
 * `next` is the breakdown of a later request: fresh copies of the messages (as pi gives every
 * request), its calls sized after it went out, the request before it known to the log;
 * `keyed` is that breakdown in a NEW log of the same session key (the OpenClaw plugin: a new
 * engine, so a new RequestLog, per inbound message; the key's call sizes outlive it).
 *
 * `node --expose-gc --import tsx bench/breakdown.ts` (writes bench/breakdown-results.json).
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { agedKeys, computeBreakdown } from "../src/agents/breakdown/compute.js";
import { CallSizes } from "../src/agents/breakdown/call-sizes.js";
import { RequestLog } from "../src/agents/engine/request-log.js";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { timeIt } from "./timer.js";

const repo = resolve(import.meta.dirname, "..");
const { name, messages: source } = loadSourceMessages(repo);
const tools = ["read", "write", "edit", "bash"].map((n) => ({
  name: n,
  description: `The ${n} tool. `.repeat(20),
  parameters: { type: "object", properties: { path: { type: "string", description: "Path to the file" }, content: { type: "string" } }, required: ["path"] },
}));
const systemPrompt = "You are a coding agent. ".repeat(400);
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** With --expose-gc: the setup's garbage is collected before the timed call, not during it. */
const gc = (globalThis as { gc?: () => void }).gc;

/** Times of `fn` alone, `setup` run untimed before each call (its garbage collected first unless `collect` is false). */
function timed<T>(iterations: number, warmup: number, setup: () => T, fn: (x: T) => unknown, collect = true): number[] {
  const out: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const x = setup();
    if (collect) gc?.();
    const t0 = performance.now();
    fn(x);
    if (i >= warmup) out.push(performance.now() - t0);
  }
  return out;
}

const rows: Array<Record<string, unknown>> = [];
const load = [loadavg()[0]];
for (const n of [200, 2000, 20000]) {
  const factory = new MessageFactory(source);
  const unaged = factory.take(n);
  const extra = factory.take(2); // the next request's new messages (a reply with its calls, a result)
  let k = 0;
  const sent = unaged.map((m) => {
    if (m.role !== "toolResult" || k++ % 10 !== 0) return m;
    return { ...m, content: [{ type: "text", text: "[tool output stored off the prompt: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]" }] } as AgentMessage;
  });
  const input = { messages: sent, aging: { unaged, sent }, previousAged: agedKeys({ unaged, sent }), host: { systemPrompt, tools }, contextWindow: 200_000, checkpointThreshold: 0.8 };
  const its = n >= 20000 ? 20 : 200;
  const settings = { contextWindow: 200_000, checkpointThreshold: 0.8 };
  const host = { systemPrompt, tools: () => tools };
  const request = { unaged, sent, final: sent, host, tokens: 1, contextWindow: 200_000 };
  // unsized: no call sizes at all (every tool call's arguments stringified), for reference
  const unsized = await timeIt(its, 20, () => computeBreakdown(input));
  // the first breakdown of a session: a new log, the request recorded and its calls sized after
  // it went out (RequestLog.warmCalls, timed apart: the whole history once, then O(new))
  const firstWarm = timed(its, 20, () => {
    const log = new RequestLog(`bench-${Math.random()}`);
    log.record(request);
    return log;
  }, (log) => log.warmCalls());
  const first = timed(its, 20, () => {
    const log = new RequestLog(`bench-${Math.random()}`);
    log.record(request);
    log.warmCalls();
    return log;
  }, (log) => log.breakdown(settings));
  // every later request: two new messages, sized after the request (O(new messages))
  const next = { ...request, unaged: [...unaged, ...extra], sent: [...sent, ...extra], final: [...sent, ...extra] };
  const stepWarm = timed(its, 20, () => {
    const log = new RequestLog(`bench-${Math.random()}`);
    log.record(request);
    log.warmCalls();
    log.record(next);
    return log;
  }, (log) => log.warmCalls());
  // the next request's breakdown, as a session asks it (the gauge phrase, a checkpoint): the
  // host hands every request fresh copies of its messages (pi structuredClones them), the
  // calls were sized after the request went out (warmCalls), the log knows the request before
  const nextCopy = () => {
    const u = structuredClone([...unaged, ...extra]);
    const s = u.map((m, i) => (i < sent.length && sent[i] !== unaged[i] ? (structuredClone(sent[i]) as AgentMessage) : m));
    return { ...request, unaged: u, sent: s, final: s };
  };
  const nextLog = new RequestLog(`bench-${Math.random()}`);
  nextLog.record(request);
  nextLog.warmCalls();
  nextLog.breakdown(settings);
  const nextTimes = timed(n >= 20000 ? 10 : its, n >= 20000 ? 3 : 20, () => {
    nextLog.record(nextCopy());
    nextLog.warmCalls();
    return nextLog;
  }, (log) => log.breakdown(settings), false); // no forced GC: its sweeping would land in the timed call (see `first`)
  // the OpenClaw plugin: a new log per inbound message, of the key whose earlier log recorded and sized the request before
  const key = `bench-breakdown-${n}`;
  const keyedBefore = new RequestLog(key);
  keyedBefore.record(request);
  keyedBefore.warmCalls();
  keyedBefore.breakdown(settings);
  const keyedTimes = timed(n >= 20000 ? 10 : its, n >= 20000 ? 3 : 20, () => {
    const log = new RequestLog(key);
    log.record(nextCopy());
    log.warmCalls();
    return log;
  }, (log) => log.breakdown(settings), false);
  // and that new log's sizing after the request (per inbound message: the history's calls were sized by a log before it)
  const keyedSize = timed(its, 20, () => {
    const log = new RequestLog(key);
    log.record(nextCopy());
    return log;
  }, (log) => log.warmCalls(), false);
  const calls = new CallSizes();
  computeBreakdown({ ...input, calls });
  const warm = await timeIt(its, 20, () => computeBreakdown({ ...input, calls }));
  const log = new RequestLog(`bench-${Math.random()}`);
  const record = await timeIt(1000, 100, () => log.record({ unaged, sent, final: sent, host: {}, tokens: 1, contextWindow: 200_000 }));
  rows.push({
    messages: n,
    chars: JSON.stringify(unaged).length,
    firstMedianMs: r3(q(first, 0.5)),
    firstP95Ms: r3(q(first, 0.95)),
    warmMedianMs: r3(q(warm, 0.5)),
    nextMedianMs: r3(q(nextTimes, 0.5)),
    nextP95Ms: r3(q(nextTimes, 0.95)),
    keyedMedianMs: r3(q(keyedTimes, 0.5)),
    keyedP95Ms: r3(q(keyedTimes, 0.95)),
    keyedSizeMs: r3(q(keyedSize, 0.5)),
    warmP95Ms: r3(q(warm, 0.95)),
    unsizedMedianMs: r3(q(unsized, 0.5)),
    sizeHistoryMs: r3(q(firstWarm, 0.5)),
    sizeNewMs: r3(q(stepWarm, 0.5)),
    recordMedianMs: r3(q(record, 0.5)),
  });
}
load.push(loadavg()[0]);
const out = { date: new Date().toISOString(), node: process.version, exposeGc: gc !== undefined, transcript: name, loadAverage1m: { start: load[0], end: load[1] }, rows };
writeFileSync(resolve(import.meta.dirname, "breakdown-results.json"), `${JSON.stringify(out, null, 1)}\n`);
console.table(rows);
