import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkpointSessionDir, sessionDirName, stateSessionDir } from "../../src/infra/session-dir.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { makeDraft, makeTempDir, removeDir } from "./helpers.js";

const NASTY_KEYS = [
  "..",
  ".",
  "a/../../b",
  "/etc/passwd",
  "C:\\x",
  "a:b",
  "a_b",
  "a/b",
  "a b",
  "k".repeat(10_000),
  "",
  "nul\0key",
  "emoji 🎉 key",
  "CON",
  "NUL",
  "com1",
  "x.",
  "x ",
  "-rf",
  "___",
  "telegram:user123",
  "agent:main:subagent:abc",
  "a\uD800",
];

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

describe("sessionDirName", () => {
  it("is safe, bounded and injective for nasty keys", () => {
    const names = NASTY_KEYS.map((k) => sessionDirName(k));
    expect(new Set(names).size).toBe(NASTY_KEYS.length);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]*-[0-9a-f]{16}$/);
      expect(name.length).toBeLessThanOrEqual(57);
      expect(name).not.toContain(".");
      expect(WINDOWS_RESERVED.test(name)).toBe(false);
      expect(name).not.toMatch(/[. ]$/);
    }
    expect(sessionDirName("telegram:user123")).toMatch(/^telegram_user123-[0-9a-f]{16}$/);
    expect(sessionDirName("")).toMatch(/^session-/);
    expect(sessionDirName("..")).toMatch(/^session-/);
  });

  it("is stable (same key, same directory)", () => {
    expect(sessionDirName("a:b")).toBe(sessionDirName("a:b"));
  });

  it("keeps both directory kinds inside the state dir", () => {
    for (const key of NASTY_KEYS) {
      for (const dir of [checkpointSessionDir("/state", key), stateSessionDir("/state", key)]) {
        const rel = path.relative("/state", dir);
        expect(rel.startsWith("..")).toBe(false);
        expect(rel.split(path.sep)).toHaveLength(3);
      }
    }
  });
});

describe("writing checkpoints for nasty session keys", () => {
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await makeTempDir();
  });
  afterAll(async () => removeDir(stateDir));

  it("writes every key in its own directory inside the state dir, none throw, none collide", async () => {
    for (const key of NASTY_KEYS) {
      const res = await writeCheckpoint({ stateDir }, makeDraft({ sessionKey: key, topic: `topic of ${key.slice(0, 30)}` }));
      expect(res.written).toBe(true);
      if (res.written) expect(path.relative(stateDir, res.path).startsWith("..")).toBe(false);
    }
    const dirs = await fsp.readdir(path.join(stateDir, "context", "checkpoints"));
    expect(dirs).toHaveLength(NASTY_KEYS.length);
    expect(await fsp.readdir(stateDir)).toEqual(["context"]);
    for (const key of NASTY_KEYS) {
      const cp = await readLatestCheckpoint({ stateDir }, key);
      expect(cp?.meta.session_key).toBe(key === "a\uD800" ? "a\uFFFD" : key);
      expect(cp?.meta.checkpoint_id).toBe("cp_001");
    }
  });
});
