/** pi's compaction reserve read from OpenClaw's config for the plugin route (src/openclaw-plugin/index.ts). */
import { describe, expect, it } from "vitest";
import { openClawReserveTokens } from "../../src/openclaw-plugin/index.js";

const cfg = (compaction: Record<string, unknown>) => ({ agents: { defaults: { compaction } } });

describe("openClawReserveTokens", () => {
  it("reads agents.defaults.compaction.reserveTokens", () => {
    expect(openClawReserveTokens(cfg({ reserveTokens: 5_000 }))).toBe(5_000);
  });
  it("raises it to reserveTokensFloor when that is set too", () => {
    expect(openClawReserveTokens(cfg({ reserveTokens: 5_000, reserveTokensFloor: 20_000 }))).toBe(20_000);
    expect(openClawReserveTokens(cfg({ reserveTokens: 30_000, reserveTokensFloor: 20_000 }))).toBe(30_000);
  });
  it("undefined when no reserve is set or the value is not a count (the plugin's smartTrimReserveTokens applies)", () => {
    expect(openClawReserveTokens(undefined)).toBeUndefined();
    expect(openClawReserveTokens(cfg({}))).toBeUndefined();
    expect(openClawReserveTokens(cfg({ reserveTokensFloor: 20_000 }))).toBeUndefined();
    expect(openClawReserveTokens(cfg({ reserveTokens: "8000" }))).toBeUndefined();
    expect(openClawReserveTokens(cfg({ reserveTokens: -1 }))).toBeUndefined();
  });
});
