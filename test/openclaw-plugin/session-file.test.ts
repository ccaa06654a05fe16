/**
 * openclaw-session.json is read by every engine instance of a key: a corrupt, hostile or
 * unwritable file must read as a fresh one and never stop a turn.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { addCommitted, hasCommitted, PluginSessionFile, SESSION_FILE } from "../../src/openclaw-plugin/session-file.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const KEY = "agent:main:x";
const fileOf = (stateDir: string) => join(stateSessionDir(stateDir, KEY), SESSION_FILE);

describe("openclaw-session.json", () => {
  it("round-trips, bounds what it keeps, and hashes an overlong host key", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-sf-"));
    const f = new PluginSessionFile(stateDir, KEY);
    const d = await f.read();
    expect(d).toEqual({ keys: [], window: null, summaries: { seen: undefined, ownCompaction: false }, compactions: 0, tokens: 0, restoreFor: [] });
    for (let i = 0; i < 300; i++) addCommitted(d, `k${i}`);
    const long = "x".repeat(5000);
    addCommitted(d, long);
    Object.assign(d, { window: 32_000, compactions: 2, tokens: 900, restoreFor: ["s1"], summaries: { seen: "1:2:abc", ownCompaction: true } });
    await f.write(d);
    const back = await new PluginSessionFile(stateDir, KEY).read();
    expect(back.keys).toHaveLength(256);
    expect(hasCommitted(back, long)).toBe(true);
    expect(hasCommitted(back, "k0")).toBe(false); // the oldest fell out
    expect(readFileSync(fileOf(stateDir), "utf8")).not.toContain(long);
    expect(back).toMatchObject({ window: 32_000, compactions: 2, tokens: 900, restoreFor: ["s1"], summaries: { seen: "1:2:abc", ownCompaction: true } });
  });

  it("a corrupt or hostile file reads as a fresh one", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-sf-"));
    mkdirSync(dirname(fileOf(stateDir)), { recursive: true });
    for (const text of ["{not json", "null", "[]", JSON.stringify({ keys: "k", window: -5, compactions: 1e300, tokens: "9", restoreFor: [1, {}], summaries: { seen: 7 } })]) {
      writeFileSync(fileOf(stateDir), text);
      const d = await new PluginSessionFile(stateDir, KEY).read();
      expect(d.keys).toEqual([]);
      expect(d.window).toBeNull();
      expect(d.compactions).toBe(0);
      expect(d.tokens).toBe(0);
      expect(d.restoreFor).toEqual([]);
      expect(d.summaries.seen === undefined || typeof d.summaries.seen === "string").toBe(true);
    }
  });

  it("a state dir that cannot hold the file (a file in the way): write() rejects, the engine's commitTurn still answers committed", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-sf-"));
    mkdirSync(dirname(fileOf(stateDir)), { recursive: true });
    mkdirSync(fileOf(stateDir)); // a directory where the file goes: no rename can replace it
    const f = new PluginSessionFile(stateDir, KEY);
    await expect(f.write(await f.read())).rejects.toThrow();
    const warnings: string[] = [];
    let engine: ContextEngineShape | null = null;
    registerContextManagerPlugin(
      { id: "context-manager", pluginConfig: { stateDir }, logger: { warn: (m: string) => warnings.push(m) }, registerContextEngine: (_id, fac) => void (engine = fac({}) as ContextEngineShape) },
      async () => ({ ok: true, compacted: false }),
    );
    const r = await engine!.commitTurn({ advancementKey: "a", sessionId: "s", sessionKey: KEY, messages: [{ role: "user", content: "hello there", timestamp: Date.now() } as AgentMessage] });
    expect(r.status).toBe("committed");
    await engine!.dispose(); // the session file is written after commitTurn returns (turn-writes.ts)
    expect(warnings.join("\n")).toMatch(/session file failed/);
  });
});
