/**
 * Smart trim's token estimates (trim/smart-trim.ts TokenMemo): equal to pi's estimateTokens for every
 * message, whether its tool calls were measured before (off the request path) or not, and
 * after aged offload swapped a long argument for its marker line (the call measured again).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withAgedArgs } from "../../src/agents/artifacts/offload.js";
import { TokenMemo } from "../../src/agents/trim/smart-trim.js";
import { assistantMsg, toolResultMsg, userMsg } from "../hardening/helpers.js";

const callMsg = (args: unknown, text = "", thinking = ""): AgentMessage =>
  assistantMsg([
    ...(thinking ? [{ type: "thinking", thinking }] : []),
    ...(text ? [{ type: "text", text }] : []),
    { type: "toolCall", id: "call_1", name: "write", arguments: args },
    { type: "toolCall", id: "call_2", name: "bash", arguments: { command: "ls -la" } },
  ]);

describe("TokenMemo", () => {
  it("equals estimateTokens on any arguments, remembered first or not, and again on a clone", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.string(), fc.boolean(), (args, text, thinking, first) => {
        const m = callMsg(args, text, thinking);
        const memo = new TokenMemo();
        if (first) memo.remember("k", m);
        expect(memo.tokensOf("k", m)).toBe(estimateTokens(m));
        // pi hands each request a structuredClone: the memo is reused, the estimate the same
        const again = structuredClone(m);
        expect(memo.tokensOf("k", again)).toBe(estimateTokens(again));
      }),
      { numRuns: 300 },
    );
  });

  it("an aged call (a long argument swapped for its marker) is measured again", () => {
    const body = "export const x = 1;\n".repeat(400);
    const m = callMsg({ path: "src/x.ts", content: body }, "Writing the file.");
    const memo = new TokenMemo();
    memo.remember("k", m);
    expect(memo.tokensOf("k", m)).toBe(estimateTokens(m));
    const aged = callMsg(withAgedArgs({ path: "src/x.ts", content: body }, "art_1234"), "Writing the file.");
    expect(estimateTokens(aged)).toBeLessThan(estimateTokens(m));
    expect(memo.tokensOf("k", aged)).toBe(estimateTokens(aged));
  });

  it("a changed string length or text is counted as it is now", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string(), (a, b, text) => {
        const memo = new TokenMemo();
        memo.remember("k", callMsg({ content: a }));
        const now = callMsg({ content: a + b }, text);
        expect(memo.tokensOf("k", now)).toBe(estimateTokens(now));
      }),
      { numRuns: 200 },
    );
  });

  it("other roles: estimateTokens itself", () => {
    const memo = new TokenMemo();
    for (const m of [userMsg("hello there"), toolResultMsg("call_1", "read", "a".repeat(1000)), assistantMsg([{ type: "text", text: "no calls" }])]) {
      memo.remember("k", m);
      expect(memo.tokensOf("k", m)).toBe(estimateTokens(m));
    }
  });
});
