/**
 * The request the breakdown benches time (docs/benchmarks.md#context-breakdown): `n` messages of
 * the bench transcript (bench/messages.ts), 1 tool result in 10 replaced by an aged stand-in, the
 * host's system prompt and tools, and the next request as the host hands it: fresh
 * structuredClone'd copies of every message plus two new ones.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type MessageFactory } from "./messages.js";

export const BENCH_TOOLS = ["read", "write", "edit", "bash"].map((n) => ({ name: n, description: `The ${n} tool. `.repeat(20), parameters: { type: "object", properties: { path: { type: "string" } } } }));
export const BENCH_SYSTEM_PROMPT = "You are a coding agent. ".repeat(400);
export const BENCH_SETTINGS = { contextWindow: 200_000, checkpointThreshold: 0.8 };

/** What aged offload leaves of a tool result in the prompt. */
function agedStandIn(m: AgentMessage): AgentMessage {
  return { ...m, content: [{ type: "text", text: "[tool output stored off the prompt: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]" }] } as AgentMessage;
}

export function breakdownFixture(factory: MessageFactory, n: number) {
  const unaged = factory.take(n);
  const extra = factory.take(2); // the next request's new messages (a reply with its calls, a result)
  let k = 0;
  const sent = unaged.map((m) => (m.role !== "toolResult" || k++ % 10 !== 0 ? m : agedStandIn(m)));
  const host = { systemPrompt: BENCH_SYSTEM_PROMPT, tools: () => BENCH_TOOLS };
  const request = { unaged, sent, final: sent, host, tokens: 1, contextWindow: 200_000 };
  /** The next request: fresh copies of every message (the aged ones still aged) and two new ones. */
  const nextCopy = () => {
    const u = structuredClone([...unaged, ...extra]);
    const s = u.map((m, i) => (i < sent.length && sent[i] !== unaged[i] ? (structuredClone(sent[i]) as AgentMessage) : m));
    return { ...request, unaged: u, sent: s, final: s };
  };
  return { unaged, extra, sent, request, nextCopy };
}
