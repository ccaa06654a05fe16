/**
 * The reserve smart trim and the cold-moment trim are placed under (engine/runtime.ts reserveTokensOf):
 * standalone pi's own `compaction.reserveTokens` from its settings files wins over the config's
 * smartTrimReserveTokens; without one the key applies.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { reserveTokensOf } from "../../src/agents/engine/runtime.js";
import { standaloneRuntime } from "../../src/agents/pi-extensions/context-manager.js";

describe("the host's compaction reserve", () => {
  let root: string;
  const saved = process.env.PI_CODING_AGENT_DIR;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "cm-reserve-"));
    process.env.PI_CODING_AGENT_DIR = join(root, "agent"); // no global settings file
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
    rmSync(root, { recursive: true, force: true });
  });

  it("standalone pi: the project settings' compaction.reserveTokens wins over smartTrimReserveTokens", () => {
    mkdirSync(join(root, ".pi"), { recursive: true });
    writeFileSync(join(root, ".pi", "settings.json"), JSON.stringify({ compaction: { reserveTokens: 3_000 } }));
    const runtime = standaloneRuntime(root, resolveContextManagerConfig({ smartTrimReserveTokens: 9_000 }));
    expect(reserveTokensOf(runtime)).toBe(3_000);
  });

  it("no reserve in pi's settings: the config key applies", () => {
    const runtime = standaloneRuntime(root, resolveContextManagerConfig({ smartTrimReserveTokens: 9_000 }));
    expect(runtime.hostReserveTokens).toBeUndefined();
    expect(reserveTokensOf(runtime)).toBe(9_000);
  });
});
