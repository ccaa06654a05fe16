import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { CheckpointError } from "../../src/agents/checkpoint/errors.js";
import { formatCheckpointId, parseCheckpointId } from "../../src/agents/checkpoint/ids.js";
import { listCheckpoints, readCheckpointFile } from "../../src/agents/checkpoint/files.js";
import { listCheckpointSessions, readLatestPointer } from "../../src/agents/checkpoint/sessions.js";
import { POINTER_FILE } from "../../src/agents/checkpoint/files.js";
import { pruneCheckpoints } from "../../src/agents/checkpoint/files.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { writeCheckpoint, CheckpointWriter } from "../../src/agents/checkpoint/writer.js";
import { type CheckpointStoreOptions } from "../../src/agents/checkpoint/files.js";
import { createFileExclusive, writeFileAtomic } from "../../src/infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { makeCheckpoint, makeDraft, makeTempDir, removeDir } from "./helpers.js";

const KEY = "telegram:user123";
let stateDir: string;
let opts: CheckpointStoreOptions;
let dir: string;

beforeEach(async () => {
  stateDir = await makeTempDir();
  opts = { stateDir };
  dir = checkpointSessionDir(stateDir, KEY);
});
afterEach(async () => removeDir(stateDir));

async function write(overrides: Parameters<typeof makeDraft>[0] = {}, o: CheckpointStoreOptions = opts) {
  const res = await writeCheckpoint(o, makeDraft({ sessionKey: KEY, ...overrides }));
  if (!res.written) throw new Error("unexpected dedup");
  return res;
}

/** put a checkpoint file directly on disk (no pointer update) */
async function plant(n: number, key = KEY, previous: string | null = n > 1 ? formatCheckpointId(n - 1) : null) {
  await fsp.mkdir(dir, { recursive: true });
  const id = formatCheckpointId(n);
  const cp = makeCheckpoint(id, previous, makeDraft({ sessionKey: key, topic: `planted ${n}` }));
  await fsp.writeFile(path.join(dir, `${id}.yaml`), serializeCheckpoint(cp));
}

async function pointerJson(): Promise<Record<string, unknown>> {
  return JSON.parse(await fsp.readFile(path.join(dir, POINTER_FILE), "utf8")) as Record<string, unknown>;
}

describe("ids", () => {
  it("formats and parses numerically", () => {
    expect(formatCheckpointId(1)).toBe("cp_001");
    expect(formatCheckpointId(999)).toBe("cp_999");
    expect(formatCheckpointId(1000)).toBe("cp_1000");
    expect(parseCheckpointId("cp_1000")).toBe(1000);
    expect(parseCheckpointId("cp_007")).toBe(7);
    for (const bad of ["cp_7", "cp_0007", "cp_000", "cp_-01", "cp_1e3", "xcp_001", "cp_001.yaml", "../cp_001"]) expect(parseCheckpointId(bad)).toBeNull();
    expect(() => formatCheckpointId(0)).toThrow(RangeError);
  });
});

describe("write + read", () => {
  it("writes cp_001, cp_002 with back links, pointer, private modes", async () => {
    const a = await write({ topic: "first" });
    const b = await write({ topic: "second" });
    expect([a.id, b.id]).toEqual(["cp_001", "cp_002"]);
    expect(a.checkpoint.meta.previous_checkpoint).toBeNull();
    expect(b.checkpoint.meta.previous_checkpoint).toBe("cp_001");
    expect(await pointerJson()).toMatchObject({ checkpoint_id: "cp_002", path: "cp_002.yaml", session_key: KEY });
    expect(await readLatestPointer(opts, KEY)).toMatchObject({ checkpoint_id: "cp_002", path: path.join(dir, "cp_002.yaml") });
    const latest = await readLatestCheckpoint(opts, KEY);
    expect(latest).toEqual(b.checkpoint);
    expect(await readCheckpointFile(a.path, KEY)).toEqual(a.checkpoint);
    if (process.platform !== "win32") {
      expect((await fsp.stat(a.path)).mode & 0o777).toBe(0o600);
      expect((await fsp.stat(path.join(dir, POINTER_FILE))).mode & 0o777).toBe(0o600);
      expect((await fsp.stat(dir)).mode & 0o777).toBe(0o700);
    }
    expect((await fsp.readdir(dir)).sort()).toEqual(["_latest.json", "cp_001.yaml", "cp_002.yaml"]);
  });

  it("returns null for an unknown session", async () => {
    expect(await readLatestCheckpoint(opts, "nobody")).toBeNull();
    expect(await listCheckpoints(opts, "nobody")).toEqual([]);
    expect(await readLatestPointer(opts, "nobody")).toBeNull();
  });

  it("refuses an invalid draft before touching disk", async () => {
    const draft = makeDraft({ sessionKey: KEY });
    (draft.working as { status: string }).status = "busy";
    await expect(writeCheckpoint(opts, draft)).rejects.toThrow(/draft: working\.status: expected one of/);
    await expect(fsp.stat(dir)).rejects.toThrow(/ENOENT/);
  });

  it("readCheckpointFile names the file on missing / corrupt / renamed files", async () => {
    await write();
    await expect(readCheckpointFile(path.join(dir, "cp_009.yaml"))).rejects.toThrow(/^cp_009\.yaml: file not found/);
    await fsp.copyFile(path.join(dir, "cp_001.yaml"), path.join(dir, "cp_005.yaml"));
    await expect(readCheckpointFile(path.join(dir, "cp_005.yaml"))).rejects.toThrow(/cp_005\.yaml: meta\.checkpoint_id: "cp_001" does not match the file name/);
  });
});

describe("dedup", () => {
  it("skips an auto-80pct write within delta, never compaction or session-end", async () => {
    await write({ trigger: "auto-80pct", inputTokens: 160_000 });
    const dup = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "auto-80pct", inputTokens: 167_000 }));
    expect(dup).toMatchObject({ written: false, reason: "dedup" });
    const far = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "auto-80pct", inputTokens: 169_000 }));
    expect(far.written).toBe(true);
    const comp = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "compaction", inputTokens: 169_000 }));
    expect(comp.written).toBe(true);
    const end = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "session-end", inputTokens: 169_000 }));
    expect(end.written).toBe(true);
    const custom = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "auto-80pct", inputTokens: 175_000 }), { delta: 0.1 });
    expect(custom.written).toBe(false);
    expect((await listCheckpoints(opts, KEY)).map((e) => e.id)).toEqual(["cp_001", "cp_002", "cp_003", "cp_004"]);
  });

  it("does not dedup against a checkpoint of another session id on the same key", async () => {
    await write({ trigger: "auto-80pct", inputTokens: 160_000, sessionId: "old" });
    const res = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, trigger: "auto-80pct", inputTokens: 160_000, sessionId: "new" }));
    expect(res.written).toBe(true);
  });
});

describe("ids past 999 and retention (numeric order)", () => {
  it("next id, latest and retention all sort cp_1000 after cp_999", async () => {
    for (let n = 998; n <= 1003; n++) await plant(n);
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_1003", path: "cp_1003.yaml", session_key: KEY, updated_at: "" }));
    expect((await listCheckpoints(opts, KEY)).map((e) => e.n)).toEqual([998, 999, 1000, 1001, 1002, 1003]);
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("planted 1003");
    const res = await write({ topic: "new" }, { stateDir, retention: 3 });
    expect(res.id).toBe("cp_1004");
    expect(res.checkpoint.meta.previous_checkpoint).toBe("cp_1003");
    expect(res.pruned).toEqual(["cp_998", "cp_999", "cp_1000", "cp_1001"]);
    expect((await listCheckpoints(opts, KEY)).map((e) => e.id)).toEqual(["cp_1002", "cp_1003", "cp_1004"]);
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("new");
  });

  it("never deletes the file the pointer names", async () => {
    for (let n = 1; n <= 6; n++) await plant(n);
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_002", path: "cp_002.yaml", session_key: KEY, updated_at: "" }));
    const pruned = await pruneCheckpoints({ stateDir, retention: 2 }, KEY);
    expect(pruned).toEqual(["cp_001", "cp_003", "cp_004"]);
    expect((await listCheckpoints(opts, KEY)).map((e) => e.id)).toEqual(["cp_002", "cp_005", "cp_006"]);
  });

  it("keeps 5 by default and sweeps stale temp files but not fresh ones", async () => {
    for (let i = 0; i < 7; i++) await write({ topic: `t${i}` });
    expect((await listCheckpoints(opts, KEY)).map((e) => e.id)).toEqual(["cp_003", "cp_004", "cp_005", "cp_006", "cp_007"]);
    const stale = path.join(dir, ".cp_008.yaml.1234.0123456789ab.tmp");
    const fresh = path.join(dir, ".cp_009.yaml.1234.ba9876543210.tmp");
    await fsp.writeFile(stale, "partial");
    await fsp.writeFile(fresh, "partial");
    const old = new Date(Date.now() - 5 * 60_000);
    await fsp.utimes(stale, old, old);
    await write({ topic: "t7" });
    const names = await fsp.readdir(dir);
    expect(names).not.toContain(path.basename(stale));
    expect(names).toContain(path.basename(fresh));
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("t7");
  });
});

describe("recovery", () => {
  it("deleted pointer: next write does not overwrite, gets max+1", async () => {
    await write({ topic: "a" });
    await write({ topic: "b" });
    await write({ topic: "c" });
    await fsp.unlink(path.join(dir, POINTER_FILE));
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("c");
    const res = await write({ topic: "d" });
    expect(res.id).toBe("cp_004");
    expect(res.checkpoint.meta.previous_checkpoint).toBe("cp_003");
    expect((await readCheckpointFile(path.join(dir, "cp_001.yaml"))).working.topic).toBe("a");
  });

  it("id comes from the files on disk even when the pointer lags behind", async () => {
    for (let n = 1; n <= 4; n++) await plant(n);
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_001", path: "cp_001.yaml", session_key: KEY, updated_at: "" }));
    // cp_004 was made durable but its writer died before moving the pointer: it is the latest
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("planted 4");
    expect((await write()).id).toBe("cp_005");
  });

  it("truncated latest checkpoint -> the previous one is read (via previous_checkpoint)", async () => {
    await write({ topic: "one" });
    await write({ topic: "two" });
    const third = await write({ topic: "three" });
    const text = await fsp.readFile(third.path, "utf8");
    await fsp.writeFile(third.path, text.slice(0, Math.floor(text.length * 0.6)));
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("two");
    // its predecessor torn as well: falls back one more step
    const second = await fsp.readFile(path.join(dir, "cp_002.yaml"), "utf8");
    await fsp.writeFile(path.join(dir, "cp_002.yaml"), second.slice(0, Math.floor(second.length * 0.4)));
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("one");
    const next = await write({ topic: "four" });
    expect(next.id).toBe("cp_004");
    expect(next.checkpoint.meta.previous_checkpoint).toBe("cp_001");
  });

  it("garbage latest with no readable link -> directory scan", async () => {
    await write({ topic: "one" });
    const second = await write({ topic: "two" });
    await fsp.writeFile(second.path, "\0\0\0 not yaml: [");
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("one");
  });

  it("pointer to a missing file / corrupt pointer -> newest valid by numeric scan", async () => {
    for (const n of [9, 10, 100]) await plant(n);
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_200", path: "cp_200.yaml", session_key: KEY, updated_at: "" }));
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("planted 100");
    await fsp.writeFile(path.join(dir, POINTER_FILE), "{ truncated");
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("planted 100");
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_009", path: "../../../etc/passwd", session_key: KEY }));
    expect(await readLatestPointer(opts, KEY)).toBeNull();
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("planted 100");
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_200", path: "cp_200.yaml", session_key: KEY, updated_at: "" }));
    const next = await write();
    expect(next.id).toBe("cp_201"); // never reuses the number the pointer claimed
    expect(next.checkpoint.meta.previous_checkpoint).toBe("cp_100");
  });

  it("returns null (never throws) when every file is corrupt", async () => {
    await fsp.mkdir(dir, { recursive: true });
    await fsp.writeFile(path.join(dir, "cp_001.yaml"), "");
    await fsp.writeFile(path.join(dir, "cp_002.yaml"), "schema: x");
    await fsp.writeFile(path.join(dir, POINTER_FILE), "null");
    expect(await readLatestCheckpoint(opts, KEY)).toBeNull();
  });

  it("refuses a checkpoint of another session key (pointer and files)", async () => {
    await plant(1, KEY);
    await plant(2, "someone-else", "cp_001");
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_002", path: "cp_002.yaml", session_key: KEY, updated_at: "" }));
    await expect(readCheckpointFile(path.join(dir, "cp_002.yaml"), KEY)).rejects.toThrow(
      /cp_002\.yaml: meta\.session_key: checkpoint belongs to session "someone-else", expected "telegram:user123"/,
    );
    await expect(readCheckpointFile(path.join(dir, "cp_002.yaml"), KEY)).rejects.toBeInstanceOf(CheckpointError);
    expect((await readLatestCheckpoint(opts, KEY))?.meta.checkpoint_id).toBe("cp_001");
    // a pointer recorded for another key is ignored too
    await fsp.writeFile(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_001", path: "cp_001.yaml", session_key: "x", updated_at: "" }));
    expect(await readLatestPointer(opts, KEY)).toBeNull();
  });
});

describe("listCheckpointSessions", () => {
  it("lists each session dir with the raw key of its latest valid checkpoint", async () => {
    await write();
    await writeCheckpoint(opts, makeDraft({ sessionKey: "a/../b:c" }));
    await fsp.mkdir(path.join(stateDir, "context", "checkpoints", "empty-0000000000000000"), { recursive: true });
    await fsp.writeFile(path.join(stateDir, "context", "checkpoints", "stray.txt"), "x");
    const sessions = await listCheckpointSessions(stateDir);
    expect(sessions.map((s) => s.sessionKey).sort()).toEqual(["a/../b:c", KEY, null].sort());
    expect(sessions.find((s) => s.sessionKey === KEY)?.path).toBe(dir);
    expect(await listCheckpointSessions(path.join(stateDir, "nope"))).toEqual([]);
  });
});

describe("fault injection through FsOps", () => {
  const failing = (method: keyof FsOps, code: string, match: (args: unknown[]) => boolean = () => true, times = Infinity): FsOps => {
    let left = times;
    return new Proxy(nodeFsOps, {
      get(target, prop, receiver) {
        const orig = Reflect.get(target, prop, receiver) as (...a: unknown[]) => Promise<unknown>;
        if (prop !== method) return orig;
        return async (...args: unknown[]) => {
          if (left > 0 && match(args)) {
            left--;
            throw Object.assign(new Error(`${code}: injected`), { code });
          }
          return orig(...args);
        };
      },
    });
  };

  it("ENOSPC while writing: throws, no checkpoint file, no temp file, pointer unchanged", async () => {
    await write({ topic: "kept" });
    const fs: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        const fh = await nodeFsOps.open(p, flags, mode);
        return { ...fh, writeFile: async () => { throw Object.assign(new Error("ENOSPC: injected"), { code: "ENOSPC" }); }, close: fh.close, sync: fh.sync };
      },
    };
    await expect(writeCheckpoint({ stateDir, fs }, makeDraft({ sessionKey: KEY }))).rejects.toThrow(/ENOSPC/);
    expect((await fsp.readdir(dir)).sort()).toEqual(["_latest.json", "cp_001.yaml"]);
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("kept");
  });

  it("link unsupported (EPERM): falls back to claim + rename, still exclusive", async () => {
    const fs = failing("link", "EPERM");
    const a = await write({ topic: "a" }, { stateDir, fs });
    const b = await write({ topic: "b" }, { stateDir, fs });
    expect([a.id, b.id]).toEqual(["cp_001", "cp_002"]);
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("b");
    expect(await createFileExclusive(b.path, "other", { fs })).toBe(false);
    expect((await readCheckpointFile(b.path)).working.topic).toBe("b");
    expect((await fsp.readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("EEXIST on publish: takes the next id instead of overwriting", async () => {
    await write({ topic: "a" });
    // a racing writer publishes cp_002 between our id choice and our link
    let raced = false;
    const fs: FsOps = {
      ...nodeFsOps,
      link: async (from, to) => {
        if (!raced && to.endsWith("cp_002.yaml")) {
          raced = true;
          await plant(2);
        }
        return nodeFsOps.link(from, to);
      },
    };
    const res = await write({ topic: "mine" }, { stateDir, fs });
    expect(res.id).toBe("cp_003");
    expect(res.checkpoint.meta.previous_checkpoint).toBe("cp_002");
    expect((await readCheckpointFile(path.join(dir, "cp_002.yaml"))).working.topic).toBe("planted 2");
  });

  it("writeFileAtomic retries a transient EPERM rename and falls back when it persists", async () => {
    await fsp.mkdir(dir, { recursive: true });
    const target = path.join(dir, "f.json");
    await writeFileAtomic(target, "one", { fs: failing("rename", "EPERM", () => true, 2) });
    expect(await fsp.readFile(target, "utf8")).toBe("one");
    await writeFileAtomic(target, "two", { fs: failing("rename", "EBUSY") });
    expect(await fsp.readFile(target, "utf8")).toBe("two");
    expect((await fsp.readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    await expect(writeFileAtomic(target, "three", { fs: failing("rename", "EIO") })).rejects.toThrow(/EIO/);
    expect(await fsp.readFile(target, "utf8")).toBe("two");
    expect((await fsp.readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("pointer write failing (EACCES) keeps the durable checkpoint and reports a warning", async () => {
    await write({ topic: "a" });
    const fs = failing("writeFile", "EACCES", (args) => String(args[0]).includes("_latest.json"));
    const res = await write({ topic: "b" }, { stateDir, fs });
    expect(res.warnings.join()).toMatch(/pointer not updated: EACCES/);
    expect((await pointerJson()).checkpoint_id).toBe("cp_001");
    expect((await readLatestCheckpoint(opts, KEY))?.working.topic).toBe("b");
    expect((await write({ topic: "c" })).id).toBe("cp_003");
  });
});

describe("write path cost", () => {
  it("with a valid pointer, a write reads no checkpoint YAML; a torn latest falls back to the recovering read", async () => {
    for (let i = 0; i < 3; i++) await write({ topic: `t${i}` });
    const reads: string[] = [];
    const counting: FsOps = { ...nodeFsOps, readFile: ((p: string, enc: "utf8") => (reads.push(path.basename(p)), nodeFsOps.readFile(p, enc))) as FsOps["readFile"] };
    const fourth = await write({ topic: "t3" }, { ...opts, fs: counting });
    expect(reads.filter((r) => r.endsWith(".yaml"))).toEqual([]);
    expect(fourth.checkpoint.meta.previous_checkpoint).toBe("cp_003");
    // tear the latest: its size no longer matches the pointer, so the writer parses and links past it
    await fsp.writeFile(fourth.path, "schema: [");
    reads.length = 0;
    const fifth = await write({ topic: "t4" }, { ...opts, fs: counting });
    expect(reads.some((r) => r.endsWith(".yaml"))).toBe(true);
    expect(fifth.checkpoint.meta.previous_checkpoint).toBe("cp_003");
  });

  it("a steady write: the fsync of the directory, its listing and the pointer side by side; retention only after the fsync", async () => {
    const events: string[] = [];
    const log = <T>(what: string, run: () => Promise<T>): Promise<T> => {
      events.push(`start ${what}`);
      return run().finally(() => events.push(`end ${what}`));
    };
    const name = (p: string) => (p === dir ? "dir" : path.basename(p).replace(/^\.(.+)\.\d+\.[0-9a-f]{12}\.tmp$/, "tmp($1)"));
    const recording: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        const fh = await log(`open ${name(p)}`, () => nodeFsOps.open(p, flags, mode));
        return { writeFile: (d) => fh.writeFile(d), sync: () => log(`sync ${name(p)}`, () => fh.sync()), close: () => fh.close() };
      },
      link: (a, b) => log(`link ${name(b)}`, () => nodeFsOps.link(a, b)),
      unlink: (p) => log(`unlink ${name(p)}`, () => nodeFsOps.unlink(p)),
      readdir: (p) => log(`readdir ${name(p)}`, () => nodeFsOps.readdir(p)),
      rename: (a, b) => log(`rename ${name(b)}`, () => nodeFsOps.rename(a, b)),
      writeFile: (p, d, o) => log(`writeFile ${name(p)}`, () => nodeFsOps.writeFile(p, d, o)),
    };
    const writer = new CheckpointWriter({ ...opts, fs: recording, retention: 2 }, KEY);
    for (let i = 0; i < 3; i++) await writer.write(makeDraft({ sessionKey: KEY, topic: `t${i}` }));
    events.length = 0;
    const r = await writer.write(makeDraft({ sessionKey: KEY, topic: "t3" }));
    expect(r.written && r.pruned).toEqual(["cp_002"]);
    const at = (e: string) => {
      const i = events.indexOf(e);
      expect(i, `${e} in ${events.join(", ")}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    // the checkpoint is linked after its own fsync; what follows the link starts before the directory's fsync ends
    expect(at("end sync tmp(cp_004.yaml)")).toBeLessThan(at("start link cp_004.yaml"));
    const dirSynced = at("end sync dir");
    expect(at("start readdir dir")).toBeLessThan(dirSynced);
    at("start rename _latest.json"); // the pointer moved
    expect(at("start writeFile tmp(_latest.json)")).toBeLessThan(dirSynced);
    // a removal never goes to disk before the new name does
    expect(at("start unlink cp_002.yaml")).toBeGreaterThan(dirSynced);
    expect((await readLatestPointer(opts, KEY))?.checkpoint_id).toBe("cp_004");
  });
});

describe("temp file names", () => {
  it("are unique within the process and match TEMP_FILE_RE (the stale-temp sweep finds them)", async () => {
    const { tempPathFor: tmpName, TEMP_FILE_RE: re } = await import("../../src/infra/atomic-file.js");
    const names = Array.from({ length: 1000 }, () => tmpName("/d/cp_001.yaml"));
    expect(new Set(names).size).toBe(1000);
    for (const n of names.slice(0, 50)) expect(re.test(n.slice(3))).toBe(true);
  });
});
