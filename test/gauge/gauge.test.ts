import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { GAUGE_ADVISORY, estimateContextTokens, formatGaugeText, gaugeAction, gaugeMessage, readGauge } from "../../src/agents/gauge/context-gauge.js";
import { GAUGE_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";
import { formatGaugeLine, formatTokenCount } from "../../src/agents/gauge/gauge-line.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";
import { assistant, toolResult, user } from "../state/fixtures.js";

const cfg = DEFAULT_CONTEXT_MANAGER_CONFIG;

describe("formatGaugeLine", () => {
  it("formats percent and k tokens exactly", () => {
    const r = { tokens: 162_431, contextWindow: 200_000, utilization: 0.81, source: "sdk" as const };
    expect(formatGaugeLine(r, false)).toBe("[Context: 81% | 162k/200k tokens]");
    expect(formatGaugeLine(r, true)).toBe("[Context: 81% | 162k/200k tokens | Checkpoint saved]");
  });
  it("floors the percent and formats small and million counts", () => {
    expect(formatGaugeLine({ tokens: 149_500, contextWindow: 200_000, utilization: 0.7475, source: "estimate" }, false)).toBe(
      "[Context: 74% | 150k/200k tokens]",
    );
    expect(formatGaugeLine({ tokens: 58_000, contextWindow: 200_000, utilization: 0.29, source: "sdk" }, false)).toBe(
      "[Context: 29% | 58k/200k tokens]",
    );
    expect(formatTokenCount(850)).toBe("850");
    expect(formatTokenCount(1_000_000)).toBe("1M");
    expect(formatTokenCount(1_500_000)).toBe("1.5M");
    expect(formatGaugeLine({ tokens: 810_000, contextWindow: 1_000_000, utilization: 0.81, source: "sdk" }, false)).toBe(
      "[Context: 81% | 810k/1M tokens]",
    );
  });
  it("formatGaugeText adds the advisory only at the checkpoint level", () => {
    const r = { tokens: 170_000, contextWindow: 200_000, utilization: 0.85, source: "sdk" as const };
    expect(formatGaugeText(r, "none", false)).toBe("");
    expect(formatGaugeText(r, "gauge", false)).toBe("[Context: 85% | 170k/200k tokens]");
    const text = formatGaugeText(r, "checkpoint", true);
    expect(text).toBe(`[Context: 85% | 170k/200k tokens | Checkpoint saved]\n${GAUGE_ADVISORY}`);
    expect(GAUGE_ADVISORY.includes("\n")).toBe(false);
  });
  it("gaugeMessage is a hidden custom message", () => {
    const m = gaugeMessage("x", 5) as { role: string; customType: string; content: string; display: boolean; timestamp: number };
    expect(m).toEqual({ role: "custom", customType: GAUGE_CUSTOM_TYPE, content: "x", display: false, timestamp: 5 });
  });
});

describe("gaugeAction", () => {
  const at = (u: number) => gaugeAction({ tokens: 0, contextWindow: 100, utilization: u, source: "sdk" }, cfg);
  it("applies the thresholds with inclusive lower bounds", () => {
    expect(at(0)).toBe("none");
    expect(at(0.6999)).toBe("none");
    expect(at(0.7)).toBe("gauge");
    expect(at(0.7999)).toBe("gauge");
    expect(at(0.8)).toBe("checkpoint");
    expect(at(1.2)).toBe("checkpoint");
  });
});

describe("estimateContextTokens / readGauge", () => {
  it("uses the last usable assistant usage plus chars/4 of later messages", () => {
    const messages: AgentMessage[] = [
      user("x".repeat(400)), // 100 tokens, before the usage: not counted
      assistant("hello", { totalTokens: 1000 }),
      toolResult("c1", "read", "y".repeat(41)), // ceil(41/4) = 11
      user("abcd"), // 1
      assistant("zzzzzzzz", { stopReason: "aborted", totalTokens: 99_999 }), // aborted: skipped as usage, 2 tokens
    ];
    expect(estimateContextTokens(messages)).toBe(1000 + 11 + 1 + 2);
  });
  it("sums chars/4 when no reply has usage", () => {
    expect(estimateContextTokens([user("a".repeat(8)), user("b".repeat(5))])).toBe(2 + 2);
    expect(estimateContextTokens([])).toBe(0);
  });
  it("prefers SDK usage", () => {
    const r = readGauge({ tokens: 162_000, contextWindow: 200_000, percent: 81 }, [], 100);
    expect(r).toEqual({ tokens: 162_000, contextWindow: 200_000, utilization: 0.81, source: "sdk" });
  });
  it("falls back to the estimate when usage is null (after compaction) or undefined", () => {
    const messages = [user("a".repeat(4000))]; // 1000 tokens
    expect(readGauge({ tokens: null, contextWindow: 2000, percent: null }, messages, 999)).toEqual({
      tokens: 1000,
      contextWindow: 2000,
      utilization: 0.5,
      source: "estimate",
    });
    expect(readGauge(undefined, messages, 4000)).toEqual({ tokens: 1000, contextWindow: 4000, utilization: 0.25, source: "estimate" });
    expect(readGauge(undefined, messages, 0).utilization).toBe(0);
  });
});
