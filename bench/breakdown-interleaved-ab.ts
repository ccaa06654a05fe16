/**
 * In-process A/B of computeBreakdown (docs/benchmarks.md#context-breakdown): a 2,000-message request
 * (bench/messages.ts, 1 in 10 results aged), each variant on its own fresh structuredClone'd copy per
 * iteration, the order rotated, so both see the same machine at the same moment; `floor` is a bare
 * loop reading each message's role and each block's type and length (and each call's argsShape):
 * what any breakdown of fresh copies reads. Call sizes known from the earlier iterations.
 *
 * `MAIN=/work/main ITS=400 node --import tsx bench/breakdown-interleaved-ab.ts`
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { loadSourceMessages, MessageFactory } from "./messages.js";
import { BENCH_SYSTEM_PROMPT, BENCH_TOOLS, breakdownFixture } from "./breakdown-fixture.js";
import { CallSizes } from "../src/agents/breakdown/call-sizes.js";
import { argsShape } from "../src/agents/messages/argument-chars.js";
import { computeBreakdown } from "../src/agents/breakdown/compute.js";
const MAIN = process.env.MAIN ?? "/work/main";
const { computeBreakdown: mainCompute } = (await import(`${MAIN}/src/agents/breakdown/compute.ts`)) as typeof import("../src/agents/breakdown/compute.js");
const { CallSizes: MainCallSizes } = (await import(`${MAIN}/src/agents/breakdown/call-sizes.ts`)) as typeof import("../src/agents/breakdown/call-sizes.js");
const { messages: source } = loadSourceMessages(new URL("..", import.meta.url).pathname);
const { unaged, sent } = breakdownFixture(new MessageFactory(source), 2000);
const copy = () => { const u = structuredClone(unaged); const s = u.map((m, i) => (sent[i] !== unaged[i] ? (structuredClone(sent[i]) as AgentMessage) : m)); return { u, s }; };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function walk(ms: any[]): number {
  let n = 0;
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i]; const c = m.content; n += m.role.length;
    if (typeof c === "string") n += c.length;
    else if (Array.isArray(c)) for (const b of c) { if (b.type === "text") n += b.text.length; else if (b.type === "thinking") n += b.thinking.length; else if (b.type === "toolCall") n += argsShape(b); }
  }
  return n;
}
const host = { systemPrompt: BENCH_SYSTEM_PROMPT, tools: BENCH_TOOLS };
const calls = new CallSizes();
const mainCalls = new MainCallSizes();
const variants: Array<[string, (c: { u: AgentMessage[]; s: AgentMessage[] }) => unknown]> = [
  ["floor", (c) => walk(c.s)],
  ["main", (c) => mainCompute({ messages: c.s, aging: { unaged: c.u, sent: c.s }, previousAged: null, host, contextWindow: 200000, checkpointThreshold: 0.8, calls: mainCalls as any })],
  ["compute", (c) => computeBreakdown({ messages: c.s, aging: { unaged: c.u, sent: c.s }, previousAged: null, host, contextWindow: 200000, checkpointThreshold: 0.8, calls })],
];
const times = variants.map(() => [] as number[]);
const its = Number(process.env.ITS ?? 300);
for (let i = 0; i < its + 30; i++) {
  for (let j = 0; j < variants.length; j++) {
    const v = (i + j) % variants.length;
    const c = copy();
    const t0 = performance.now(); variants[v]![1](c); const t = performance.now() - t0;
    if (i >= 30) times[v]!.push(t);
  }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]!;
variants.forEach(([n], v) => console.log(n.padEnd(10), q(times[v]!, 0.5).toFixed(3), q(times[v]!, 0.95).toFixed(3)));
