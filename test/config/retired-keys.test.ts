/**
 * Config keys no longer read (docs/configuration.md#retired-keys): a config that still sets one
 * loads as if it did not, and the process warns once per key, never throws.
 */
import { describe, expect, it } from "vitest";
import { offloadCandidate, offloadSettings } from "../../src/agents/artifacts/offload.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";

describe("retired config keys", () => {
  it("load ignored, with one process warning per key", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on("warning", onWarning);
    try {
      const old = { smartTrim: true, smartTrimMarker: false, smartTrimHeadroom: 0.5, smartTrimKeepRecent: 3 };
      expect(resolveContextManagerConfig(old)).toEqual(resolveContextManagerConfig({ smartTrim: true }));
      expect(resolveContextManagerConfig(old)).not.toHaveProperty("smartTrimMarker");
      await new Promise((done) => setImmediate(done));
      const ours = warnings.filter((w) => (w as { code?: string }).code === "OPENCLAW_CONTEXT_RETIRED_KEY").map((w) => w.message);
      expect(ours).toHaveLength(3);
      for (const key of ["smartTrimMarker", "smartTrimHeadroom", "smartTrimKeepRecent"]) expect(ours.some((m) => m.includes(`"${key}"`))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("offload's fixed thresholds and fetchMaxChars load ignored, one warning each: a fresh stash keeps seed 004's rule", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const old = { offloadMinChars: 2_000, offloadMinLines: 10, offloadStructuredMinChars: 2_000, offloadPreviewChars: 100, fetchMaxChars: 2_000 };
      const config = resolveContextManagerConfig(old);
      expect(config).toEqual(resolveContextManagerConfig({}));
      // 3,000 chars on 50 lines: under the 8,000 / 200 the old keys would have lowered
      const text = Array.from({ length: 50 }, (_, i) => `line ${i} `.padEnd(59, "x")).join("\n");
      expect(offloadCandidate({ toolName: "bash", content: [{ type: "text", text }], isError: false }, offloadSettings(config))).toBeNull();
      await new Promise((done) => setImmediate(done));
      for (const key of Object.keys(old)) expect(warnings.filter((m) => m.includes(`"${key}"`))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a key never known is still an error", () => {
    expect(() => resolveContextManagerConfig({ smartTrimMarkers: true })).toThrow(/unknown key/);
  });
});
