/**
 * Recall never feeds on itself: context_search calls and results, the recall block and the
 * trim marker are not archived again, and a context_search result is never stashed.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { segmentsOf } from "../../src/agents/archive/segments.js";
import { SEARCH_TOOL_NAME } from "../../src/agents/archive/search-tool.js";
import { offloadCandidate, offloadSettings } from "../../src/agents/artifacts/offload.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { RECALL_CUSTOM_TYPE, RECALL_TOOLS, SEARCH_TOOL, TRIM_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";

const big = "[1] 2026-11-23 14:31Z tool_result read \"ledger.js\" · score 9.1\n" + "\"export function reconcileLedgerDrift(a, b) { return a - b; }\" ".repeat(300);

const history = [
  { role: "user", content: "where is reconcileLedgerDrift?", timestamp: 1 },
  {
    role: "assistant",
    content: [
      { type: "toolCall", id: "c1", name: "context_search", arguments: { query: "reconcileLedgerDrift" } },
      { type: "toolCall", id: "c2", name: "read", arguments: { path: "ledger.js" } },
    ],
    timestamp: 2,
  },
  { role: "toolResult", toolCallId: "c1", toolName: "context_search", content: [{ type: "text", text: big }], isError: false, timestamp: 3 },
  { role: "toolResult", toolCallId: "c2", toolName: "read", content: [{ type: "text", text: "export const ledger = 1;" }], isError: false, timestamp: 4 },
  { role: "custom", customType: RECALL_CUSTOM_TYPE, content: "[Recalled from the archive of compacted context]\n- x", display: false, timestamp: 5 },
  { role: "custom", customType: TRIM_CUSTOM_TYPE, content: "[Earlier messages were trimmed]", display: false, timestamp: 6 },
] as unknown as AgentMessage[];

describe("recall hygiene", () => {
  it("the search tool's name is the one the filters know", () => {
    expect(SEARCH_TOOL).toBe(SEARCH_TOOL_NAME);
    expect(RECALL_TOOLS.has(SEARCH_TOOL_NAME)).toBe(true);
  });

  it("context_search calls and results, the recall block and the trim marker are not archived; the rest is", () => {
    const segments = segmentsOf(history);
    expect(segments.some((s) => s.tool === "context_search")).toBe(false);
    expect(segments.some((s) => s.text.includes("score 9.1"))).toBe(false);
    expect(segments.some((s) => s.text.includes("Earlier messages were trimmed"))).toBe(false);
    expect(segments.some((s) => s.role === "tool_call" && s.tool === "read" && s.target === "ledger.js")).toBe(true);
    expect(segments.some((s) => s.role === "tool_result" && s.text.includes("export const ledger"))).toBe(true);
    expect(segments.some((s) => s.role === "user")).toBe(true);
  });

  it("a large context_search result is never stashed (fresh or aged)", () => {
    const s = offloadSettings(resolveContextManagerConfig({}));
    expect(big.length).toBeGreaterThan(s.minChars);
    expect(offloadCandidate({ toolName: "context_search", toolCallId: "c1", content: [{ type: "text", text: big }], isError: false }, s)).toBeNull();
    expect(offloadCandidate({ toolName: "read", toolCallId: "c2", content: [{ type: "text", text: big }], isError: false }, s)).not.toBeNull();
  });
});
