/**
 * What aged since the last reply measured the request (issue 27, found by the replay): the
 * breakdown subtracts only what the request before had not aged yet, known by tool call id, and
 * the request before may have been recorded by another engine of the same key (OpenClaw's runner
 * makes one per inbound message).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { RequestLog } from "../../src/agents/engine/request-log.js";
import { MESSAGE_FRAMING_CHARS } from "../../src/agents/text/token-estimate.js";

const big = "x".repeat(8000);
const standIn = "[stored: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]";
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;
const call = (id: string) => ({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path: `${id}.ts` } }], stopReason: "toolUse", timestamp: 2 }) as unknown as AgentMessage;
const result = (id: string, text: string) => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 3 }) as AgentMessage;
const reply = (tokens: number) => ({ role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop", usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: tokens }, timestamp: 4 }) as unknown as AgentMessage;
const host = { systemPrompt: "sys", tools: () => [] };
const settings = { contextWindow: 100_000, checkpointThreshold: 0.8 };
/** each message's framing, in tokens (the messages after the measured reply are estimated) */
const F = MESSAGE_FRAMING_CHARS / 4;
const request = (unaged: AgentMessage[], sent: AgentMessage[]) => ({ unaged, sent, final: sent, host, tokens: 1, contextWindow: 100_000 });

describe("request log: aged since the measured reply", () => {
  for (const sameEngine of [true, false]) {
    it(`subtracts only what newly aged (${sameEngine ? "same engine" : "a new engine of the same key"})`, () => {
      const key = `test-key-${Math.random()}`;
      const [u, a1, r1, a2, r2] = [user("go"), call("c1"), result("c1", big), call("c2"), result("c2", big)];
      const aged1 = result("c1", standIn);
      const aged2 = result("c2", standIn);
      // request 1: c1's result already aged
      const first = new RequestLog(key);
      first.record(request([u, a1, r1, a2, r2], [u, a1, aged1, a2, r2]));
      first.warmCalls();
      // request 2 after a reply that measured request 1 (8,000 tokens); c2's result ages now
      const log = sameEngine ? first : new RequestLog(key);
      const [measured, next] = [reply(8000), user("and now?")];
      log.record(request([u, a1, r1, a2, r2, measured, next], [u, a1, aged1, a2, aged2, measured, next]));
      const b = log.breakdown(settings)!;
      // only c2's cut is new since the reply measured it; c1's was never in its count
      const expected = 8000 - (big.length - standIn.length) / 4 + "and now?".length / 4 + F;
      expect(Math.abs(b.total_tokens - expected)).toBeLessThanOrEqual(1);
      expect(b.removed.aged_offload.items).toBe(2);
    });
  }

  it("after an aborted reply, subtracts what aged since the request the measured reply answered", () => {
    const log = new RequestLog(`test-key-${Math.random()}`);
    const [u, a1, r1, a2, r2] = [user("go"), call("c1"), result("c1", big), call("c2"), result("c2", big)];
    const aged1 = result("c1", standIn);
    const aged2 = result("c2", standIn);
    // request 1: c1's result aged; its reply measures it (8,000 tokens)
    log.record(request([u, a1, r1, a2, r2], [u, a1, aged1, a2, r2]));
    log.warmCalls();
    const measured = reply(8000);
    const next = { ...user("and now?"), timestamp: 5 } as AgentMessage;
    // request 2: c2's result ages; its reply is aborted (pi ignores its usage)
    log.record(request([u, a1, r1, a2, r2, measured, next], [u, a1, aged1, a2, aged2, measured, next]));
    log.warmCalls();
    const aborted = { ...reply(9000), content: [{ type: "text", text: "partial" }], stopReason: "aborted", timestamp: 6 } as unknown as AgentMessage;
    const again = { ...user("go on"), timestamp: 7 } as AgentMessage;
    // request 3: nothing new ages; the last usable reply still measured request 1, c2's result whole
    log.record(request([u, a1, r1, a2, r2, measured, next, aborted, again], [u, a1, aged1, a2, aged2, measured, next, aborted, again]));
    const b = log.breakdown(settings)!;
    const expected = 8000 - (big.length - standIn.length) / 4 + ("and now?".length + "partial".length + "go on".length) / 4 + 3 * F;
    expect(Math.abs(b.total_tokens - expected)).toBeLessThanOrEqual(1);
  });
});
