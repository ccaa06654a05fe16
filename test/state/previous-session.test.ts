/**
 * Issue 11 item 7 at the store level: bundling a previous session's uncheckpointed state files
 * (recover-previous-session.ts) with real files. The crash itself is in test/pi/crash-resume.heavy.test.ts.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContextState } from "../../src/agents/state/context-state.js";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { validateCheckpoint } from "../../src/agents/checkpoint/validate.js";
import { CheckpointError } from "../../src/agents/checkpoint/errors.js";
import { recoverPreviousSessions } from "../../src/agents/engine/recover-previous-session.js";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { CONFIG, assistant, rmDir, tempDir, user } from "./fixtures.js";

const KEY = "telegram:user1";
let stateDir: string;
const warns: string[] = [];
const debugs: string[] = [];
const logger = { warn: (m: string) => warns.push(m), debug: (m: string) => debugs.push(m) };

beforeEach(async () => {
  stateDir = await tempDir();
  warns.length = 0;
  debugs.length = 0;
});
afterEach(async () => {
  await rmDir(stateDir);
});

/** A session that captured work and flushed it, then was never heard from again. */
async function deadSession(sessionId: string, request: string, file: string): Promise<void> {
  const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId, config: CONFIG, logger });
  st.captureMessages([user(request), assistant("", { toolCalls: [{ id: `c-${sessionId}`, name: "write", arguments: { path: file, content: "x" } }] })]);
  st.captureToolResult({ toolName: "write", toolCallId: `c-${sessionId}`, input: { path: file, content: "x" }, content: [{ type: "text", text: "ok" }], isError: false }, "/w");
  st.captureToolResult({ toolName: "read", toolCallId: `r-${sessionId}`, input: { path: "gone.md" }, content: [{ type: "text", text: "ENOENT: gone.md" }], isError: true }, "/w");
  await st.flush();
}

const heldFiles = async () => (await fs.readdir(stateSessionDir(stateDir, KEY))).filter((f) => f.startsWith("previous."));

describe("previous-session bundling", () => {
  it("bundles a dead session's files into a checkpoint of that session, marked recovered, and releases them", async () => {
    await deadSession("dead-1", "Fix the parser", "src/parse.ts");
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger });
    expect(r).toMatchObject({ covered: 0, failed: 0 });
    expect(r.written).toHaveLength(1);
    const [cp] = readCheckpointsOnDisk(stateDir, KEY);
    expect(cp?.meta).toMatchObject({ session_id: "dead-1", trigger: "session-end", checkpoint_id: "cp_001" });
    expect(cp?.recovered?.by_session_id).toBe("next-1");
    expect(cp?.work?.files.map((f) => f.path)).toEqual(["src/parse.ts"]);
    expect(cp?.work?.requests).toEqual(["Fix the parser"]);
    expect(cp?.thread.errors.map((e) => e.target)).toEqual(["gone.md"]);
    expect(await heldFiles()).toEqual([]);
    // the state files are gone from the directory: the next session's load finds nothing to move aside
    const left = (await fs.readdir(stateSessionDir(stateDir, KEY))).filter((f) => f.endsWith(".json"));
    expect(left).toEqual([]);
    expect(warns).toEqual([]);
    // idempotent: a second call (the host seam and the engine both ask) writes nothing more
    const again = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger });
    expect(again.written).toHaveLength(0);
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(1);
  });

  it("the current session's own files (a restart of the same session) are never bundled", async () => {
    await deadSession("same-1", "Fix the parser", "src/parse.ts");
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "same-1", config: CONFIG, logger });
    expect(r.written).toHaveLength(0);
    const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "same-1", config: CONFIG, logger });
    expect(st.snapshot().work.files.map((f) => f.path)).toEqual(["src/parse.ts"]);
  });

  it("the two concurrent callers of one process write one bundle", async () => {
    await deadSession("dead-1", "Fix the parser", "src/parse.ts");
    const p = { stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger };
    const [a, b] = await Promise.all([recoverPreviousSessions(p), recoverPreviousSessions(p)]);
    expect(a.written.length + b.written.length).toBe(1);
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(1);
  });

  it("a failed checkpoint write loses nothing: the files stay held, and the next attempt bundles them in session order", async () => {
    await deadSession("dead-1", "First request", "a.ts");
    const full: FsOps = {
      ...nodeFsOps,
      open: (p, flags, mode) => (p.includes(`${path.sep}checkpoints${path.sep}`) ? Promise.reject(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" })) : nodeFsOps.open(p, flags, mode)),
    };
    const failed = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger, fs: full });
    expect(failed).toMatchObject({ failed: 1, written: [] });
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(0);
    expect((await heldFiles()).length).toBeGreaterThanOrEqual(3);
    expect(warns.join("\n")).toMatch(/could not bundle the state of previous session "dead-1".*stay in/);

    // that next session dies as well, after capturing its own work: its files sit beside the held ones
    await deadSession("next-1", "Second request", "b.ts");
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "third", config: CONFIG, logger });
    expect(r.failed).toBe(0);
    expect(r.written.map((c) => [c.meta.session_id, c.recovered?.by_session_id])).toEqual([
      ["dead-1", "third"],
      ["next-1", "third"],
    ]);
    const latest = await readLatestCheckpoint({ stateDir }, KEY);
    expect(latest?.meta.session_id).toBe("next-1");
    expect(latest?.work?.requests).toEqual(["Second request"]);
    expect(readCheckpointsOnDisk(stateDir, KEY)[0]?.work?.requests).toEqual(["First request"]);
    expect(await heldFiles()).toEqual([]);
  });

  it("state older than the latest checkpoint is not bundled: it stays for ContextState.load to move aside", async () => {
    await deadSession("dead-1", "Fix the parser", "src/parse.ts");
    expect((await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "n1", config: CONFIG, logger })).written).toHaveLength(1);
    // a file of an even earlier session, last written before that checkpoint
    const dir = stateSessionDir(stateDir, KEY);
    const oldAt = new Date(Date.now() - 3_600_000).toISOString();
    await fs.writeFile(
      path.join(dir, "work.json"),
      JSON.stringify({ version: 1, session_id: "dead-0", session_key: KEY, updated_at: oldAt, data: { files: [], commands: [], failures: [], requests: [] } }),
    );
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "fourth", config: CONFIG, logger });
    expect(r.written).toHaveLength(0);
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(1);
    expect(await heldFiles()).toEqual([]);
    await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "fourth", config: CONFIG, logger, latestCheckpointAt: (await readLatestCheckpoint({ stateDir }, KEY))!.meta.created_at });
    expect(await fs.readdir(path.join(dir, "stale"))).toEqual([expect.stringMatching(/^work\..*\.json$/)]);
    expect(debugs.join("\n")).toContain("work.json (older than the latest checkpoint)");
    expect(warns).toEqual([]);
  });

  it("a dead session that captured nothing since its own latest checkpoint adds no checkpoint", async () => {
    const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "dead-1", config: CONFIG, logger });
    st.captureMessages([user("Fix the parser")]);
    await st.flush();
    const first = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "n1", config: CONFIG, logger });
    expect(first.written).toHaveLength(1);
    // the same session comes back (its files again, as a reset after its checkpoint leaves them)
    const back = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "dead-1", config: CONFIG, logger });
    back.captureMessages([user("Fix the parser")]);
    await back.flush();
    const second = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "n2", config: CONFIG, logger });
    expect(second).toMatchObject({ written: [], covered: 1 });
    expect(readCheckpointsOnDisk(stateDir, KEY)).toHaveLength(1);
  });
});

describe("the recovered section in the schema", () => {
  it("round-trips through YAML and is validated field by field", async () => {
    await deadSession("dead-1", "Fix the parser", "src/parse.ts");
    const [cp] = (await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger })).written;
    const text = serializeCheckpoint(cp!);
    expect(text).toMatch(/^recovered:\n  by_session_id: "next-1"\n  state_updated_at: "[^"]+"\n  files:\n/m);
    expect(parseCheckpoint(text, "cp_001.yaml").recovered).toEqual(cp!.recovered);
    const bad: Array<[unknown, string]> = [
      [{ ...cp!.recovered, files: ["passwords"] }, "recovered.files[0]"],
      [{ ...cp!.recovered, state_updated_at: "yesterday" }, "recovered.state_updated_at"],
      [{ ...cp!.recovered, by_session_id: 7 }, "recovered.by_session_id"],
      ["yes", "recovered"],
    ];
    for (const [recovered, field] of bad) {
      let err: unknown;
      try {
        validateCheckpoint({ ...JSON.parse(JSON.stringify(cp)), recovered }, "cp_001.yaml");
      } catch (e) {
        err = e;
      }
      expect(err, field).toBeInstanceOf(CheckpointError);
      expect(String(err), field).toContain(field);
    }
  });
});

describe("a reopened session's state files (issue 24)", () => {
  /** nodeFsOps counting reads of state files (the `.json` files of the key's state dir) by path */
  function countingFs(): { fs: FsOps; reads: Map<string, number>; locks: () => number } {
    const reads = new Map<string, number>();
    let locks = 0;
    const fsOps: FsOps = {
      ...nodeFsOps,
      readFile: (p, enc) => {
        reads.set(path.basename(p), (reads.get(path.basename(p)) ?? 0) + 1);
        return nodeFsOps.readFile(p, enc);
      },
      writeFile: (p, data, opts) => {
        if (path.basename(p) === "bundle.lock") locks++;
        return nodeFsOps.writeFile(p, data, opts);
      },
    };
    return { fs: fsOps, reads, locks: () => locks };
  }

  it("its own files are read once for the previous-session check and the load, without the lock, and load as before", async () => {
    await deadSession("s-1", "Fix the parser", "src/parse.ts");
    const c = countingFs();
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "s-1", config: CONFIG, logger, fs: c.fs });
    expect(r).toMatchObject({ written: [], covered: 0, failed: 0 });
    expect(r.stateFiles).toBeDefined();
    const st = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "s-1", config: CONFIG, logger, fs: c.fs, preread: r.stateFiles });
    const files = (await fs.readdir(stateSessionDir(stateDir, KEY))).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(c.reads.get(f)).toBe(1);
    expect(c.locks()).toBe(0);
    // the same state as a load that reads the files itself
    const fresh = await ContextState.load({ stateDir, sessionKey: KEY, sessionId: "s-1", config: CONFIG, logger });
    expect(st.snapshot()).toEqual(fresh.snapshot());
    expect(st.snapshot().work.files.map((f) => f.path)).toEqual(["src/parse.ts"]);
  });

  it("another session's newer files still take the lock and are bundled, and nothing is handed to the load", async () => {
    await deadSession("dead-1", "Fix the parser", "src/parse.ts");
    const c = countingFs();
    const r = await recoverPreviousSessions({ stateDir, sessionKey: KEY, sessionId: "next-1", config: CONFIG, logger, fs: c.fs });
    expect(r.written).toHaveLength(1);
    expect(r.stateFiles).toBeUndefined();
    expect(c.locks()).toBe(1);
  });
});
