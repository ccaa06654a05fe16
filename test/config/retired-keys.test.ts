/**
 * Config keys no longer read (docs/configuration.md#retired-keys): a config that still sets one
 * loads as if it did not, and the process warns once per key, never throws.
 */
import { describe, expect, it } from "vitest";
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

  it("fetchMaxChars loads ignored, with its warning: artifact_fetch's default is the 8,000 its description states", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      expect(resolveContextManagerConfig({ fetchMaxChars: 2_000 })).toEqual(resolveContextManagerConfig({}));
      await new Promise((done) => setImmediate(done));
      expect(warnings.filter((m) => m.includes('"fetchMaxChars"'))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("a key never known is still an error", () => {
    expect(() => resolveContextManagerConfig({ smartTrimMarkers: true })).toThrow(/unknown key/);
  });
});
