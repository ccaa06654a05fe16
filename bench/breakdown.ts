/**
 * The context breakdown's cost (issue 27): computeBreakdown over a request of N messages (a
 * real transcript cycled, with its recorded usage; 1 in 10 tool results swapped as aged offload
 * would), the system prompt and four tool schemas. Computed off the request path (on /context,
 * at a checkpoint write, after a request for the gauge phrase); what the request path does is
 * RequestLog.record, timed too.
 *
 * `npx tsx bench/breakdown.ts` (writes bench/breakdown-results.json).
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { computeBreakdown } from "../src/agents/breakdown/compute.js";
import { CallSizes } from "../src/agents/breakdown/measure.js";
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

const rows: Array<Record<string, unknown>> = [];
const load = [loadavg()[0]];
for (const n of [200, 2000, 20000]) {
  const unaged = new MessageFactory(source).take(n);
  let k = 0;
  const sent = unaged.map((m) => {
    if (m.role !== "toolResult" || k++ % 10 !== 0) return m;
    return { ...m, content: [{ type: "text", text: "[tool output stored off the prompt: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]" }] } as AgentMessage;
  });
  const input = { messages: sent, aging: { unaged, sent }, previousAging: { unaged, sent }, host: { systemPrompt, tools }, contextWindow: 200_000, checkpointThreshold: 0.8 };
  // cold: every tool call stringified (the session's first breakdown); warm: the call sizes
  // remembered from the previous breakdown (RequestLog keeps them), as every later one runs
  const compute = await timeIt(n >= 20000 ? 20 : 200, 20, () => computeBreakdown(input));
  const calls = new CallSizes();
  computeBreakdown({ ...input, calls });
  const warm = await timeIt(n >= 20000 ? 20 : 200, 20, () => computeBreakdown({ ...input, calls }));
  const log = new RequestLog();
  const record = await timeIt(1000, 100, () => log.record({ unaged, sent, final: sent, host: {}, tokens: 1, contextWindow: 200_000 }));
  rows.push({ messages: n, chars: JSON.stringify(unaged).length, coldMedianMs: r3(q(compute, 0.5)), coldP95Ms: r3(q(compute, 0.95)), warmMedianMs: r3(q(warm, 0.5)), warmP95Ms: r3(q(warm, 0.95)), recordMedianMs: r3(q(record, 0.5)) });
}
load.push(loadavg()[0]);
const out = { date: new Date().toISOString(), node: process.version, transcript: name, loadAverage1m: { start: load[0], end: load[1] }, rows };
writeFileSync(resolve(import.meta.dirname, "breakdown-results.json"), `${JSON.stringify(out, null, 1)}\n`);
console.table(rows);
