import { describe, expect, it } from "vitest";
import { DEFAULT_CONTEXT_MANAGER_CONFIG, resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";

describe("compaction config keys", () => {
  it("defaults to host mode with a 2,000-token summary and a 60 s deadline", () => {
    const c = resolveContextManagerConfig({});
    expect(c.compaction).toBe("host");
    expect(c.compactionSummaryMaxTokens).toBe(2000);
    expect(c.compactionDeadlineMs).toBe(60_000);
    expect(DEFAULT_CONTEXT_MANAGER_CONFIG.compaction).toBe("host");
  });

  it("accepts checkpoint mode and in-range numbers", () => {
    const c = resolveContextManagerConfig({ compaction: "checkpoint", compactionSummaryMaxTokens: 1500, compactionDeadlineMs: 5000 });
    expect(c).toMatchObject({ compaction: "checkpoint", compactionSummaryMaxTokens: 1500, compactionDeadlineMs: 5000 });
  });

  it("names the key and what was expected on bad input", () => {
    expect(() => resolveContextManagerConfig({ compaction: "llm" })).toThrow(/contextManager\.compaction: expected "host" or "checkpoint", got the string "llm"/);
    expect(() => resolveContextManagerConfig({ compaction: true })).toThrow(/contextManager\.compaction: expected/);
    expect(() => resolveContextManagerConfig({ compactionSummaryMaxTokens: 10 })).toThrow(/compactionSummaryMaxTokens: expected 300\.\.100000, got 10/);
    expect(() => resolveContextManagerConfig({ compactionSummaryMaxTokens: 2000.5 })).toThrow(/compactionSummaryMaxTokens: expected a whole number/);
    expect(() => resolveContextManagerConfig({ compactionDeadlineMs: "60s" })).toThrow(/compactionDeadlineMs: expected a number/);
  });
});
