/**
 * messageTokens is pi's estimateTokens with each tool call's argument JSON remembered: the same
 * number for every message, asked once or again, and pi's throw where pi throws.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { messageTokens } from "../../src/agents/gauge/context-gauge.js";
import { estimateContextTokens } from "../../src/agents/gauge/context-gauge.js";
import { toolCallChars } from "../../src/agents/messages/argument-chars.js";
import { assistant, toolResult, user } from "../state/fixtures.js";
import { readTranscriptJson, transcriptFiles } from "../helpers/transcripts.js";

function transcriptMessages(): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const f of transcriptFiles(".json")) {
    const v = readTranscriptJson(f);
    // index.json and the LLM summaries are not message arrays
    if (Array.isArray(v)) out.push(...(v as AgentMessage[]).filter((m) => m && typeof m === "object" && typeof m.role === "string"));
  }
  return out;
}

const call = (id: string, name: string, args: unknown) => ({ type: "toolCall", id, name, arguments: args });

describe("messageTokens", () => {
  it("is pi's estimate on every message of the real sessions, first and second time", () => {
    const messages = transcriptMessages();
    expect(messages.length).toBeGreaterThan(2000);
    for (const m of messages) expect(messageTokens(m)).toBe(estimateTokens(m));
    for (const m of messages) expect(messageTokens(m)).toBe(estimateTokens(m));
  });

  it("is pi's estimate on text, thinking, tool calls of every argument shape, and other roles", () => {
    const samples: AgentMessage[] = [
      user("hello there"),
      toolResult("c1", "read", "file body ".repeat(50)),
      assistant("plain answer"),
      { ...assistant(""), content: [{ type: "thinking", thinking: "hmm ".repeat(30) }, { type: "text", text: "done" }, call("c2", "bash", { command: "ls -la", nested: { a: [1, 2, "x"] } })] } as unknown as AgentMessage,
      { ...assistant(""), content: [call("c3", "edit", { path: "a.ts", oldText: "é\u{1F600}", newText: "\u0000\n" }), call("c4", "noop", {}), call("c5", "list", [1, 2])] } as unknown as AgentMessage,
      { ...assistant(""), content: [call("c6", "weird", "a string, not an object")] } as unknown as AgentMessage,
      { role: "compactionSummary", summary: "summary text", tokensBefore: 1, timestamp: 1 } as unknown as AgentMessage,
      { role: "custom", customType: "x", content: "custom text", display: false, timestamp: 1 } as unknown as AgentMessage,
    ];
    for (const m of samples) {
      expect(messageTokens(m)).toBe(estimateTokens(m));
      expect(messageTokens(m)).toBe(estimateTokens(m));
    }
  });

  it("throws where pi throws (a tool call without arguments, a block without its text)", () => {
    for (const content of [[call("c7", "x", undefined)], [{ type: "text" }]]) {
      const m = { ...assistant(""), content } as unknown as AgentMessage;
      expect(() => estimateTokens(m)).toThrow();
      expect(() => messageTokens(m)).toThrow();
    }
  });

  it("the gauge's estimate over a history is the sum of pi's per-message estimates", () => {
    const messages = transcriptMessages().slice(0, 3000).map((m) => ({ ...m, usage: undefined }) as unknown as AgentMessage);
    let sum = 0;
    for (const m of messages) sum += estimateTokens(m);
    expect(estimateContextTokens(messages)).toBe(sum);
  });

  it("the breakdown counts a tool call as its name plus the JSON of its arguments, shared with the gauge", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: Array<[unknown, number]> = [
      [{ path: "a.ts", n: [1, 2] }, JSON.stringify({ path: "a.ts", n: [1, 2] }).length],
      [undefined, 2],
      [null, 2],
      ["a string", JSON.stringify("a string").length],
      [{ toJSON: () => undefined }, 0],
      [cyclic, 0],
    ];
    for (const [args, json] of cases) {
      expect(toolCallChars({ type: "toolCall", name: "read", arguments: args })).toBe(4 + json);
      expect(toolCallChars({ type: "toolCall", name: "read", arguments: args })).toBe(4 + json);
    }
  });
});
