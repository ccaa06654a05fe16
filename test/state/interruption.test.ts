import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { fauxAssistantMessage, fauxToolCall } from "@mariozechner/pi-ai";
import { interruption } from "../../src/agents/engine/checkpoint-writes.js";

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: 1 }) as AgentMessage;
const call = fauxAssistantMessage([fauxToolCall("edit", { path: "src/a.ts" })], { stopReason: "toolUse" }) as AgentMessage;
const result = { role: "toolResult", toolCallId: "x", toolName: "edit", content: [], isError: false, timestamp: 2 } as unknown as AgentMessage;

describe("working.interrupted from the compaction preparation", () => {
  it("a finished run is not interrupted, even when pi's cut splits a turn", () => {
    const branch = [user("fix it"), call, result, fauxAssistantMessage("Done.") as AgentMessage];
    expect(interruption(branch)).toEqual({ isSplitTurn: false, lastToolCall: null });
  });
  it("a run cut off mid-turn (overflow error, abort, pending tool result) is interrupted, with its last tool call", () => {
    const overflow = fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long" }) as AgentMessage;
    expect(interruption([user("fix it"), call, result, overflow])).toEqual({
      isSplitTurn: true,
      lastToolCall: { name: "edit", params_summary: expect.stringContaining("src/a.ts") },
    });
    expect(interruption([user("fix it"), call, result]).isSplitTurn).toBe(true);
  });
  it("the last tool call is the run's latest, not the one in an older turn where pi's cut fell", () => {
    const older = fauxAssistantMessage([fauxToolCall("read", { path: "src/old.ts" })], { stopReason: "toolUse" }) as AgentMessage;
    const latest = fauxAssistantMessage([fauxToolCall("read", { path: "AGENTS.md" })], { stopReason: "toolUse" }) as AgentMessage;
    const aborted = fauxAssistantMessage("", { stopReason: "aborted" }) as AgentMessage;
    const branch = [user("theme work"), older, result, fauxAssistantMessage("Done.") as AgentMessage, user("update the system prompt"), latest, result, aborted];
    expect(interruption(branch).lastToolCall?.params_summary).toContain("AGENTS.md");
  });
});
