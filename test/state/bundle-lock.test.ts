/**
 * The cross-process lock of previous-session bundling (src/agents/state/previous-session.ts), on real
 * files: taken and released; a live holder is waited for, then reported busy; a dead holder's,
 * an old or a torn lock is broken; a disk that cannot take the lock file lets bundling go on.
 */
import fs from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLE_LOCK_FILE, LOCK_STALE_MS, acquireBundleLock } from "../../src/agents/state/previous-session.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { rmDir, tempDir } from "./fixtures.js";

let dir: string;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await rmDir(dir);
});
const lockFile = () => path.join(dir, BUNDLE_LOCK_FILE);
const other = (pid: number, at = Date.now()) => JSON.stringify({ pid, host: hostname(), at });

describe("bundle lock", () => {
  it("is taken exclusively and removed on release; the release leaves another holder's lock alone", async () => {
    const a = await acquireBundleLock(nodeFsOps, dir);
    expect(a.kind).toBe("held");
    expect(JSON.parse(await fs.readFile(lockFile(), "utf8")).pid).toBe(process.pid);
    if (a.kind === "held") await a.release();
    await expect(fs.stat(lockFile())).rejects.toThrow();
    const b = await acquireBundleLock(nodeFsOps, dir);
    const theirs = other(4242);
    await fs.writeFile(lockFile(), theirs); // broken and re-taken by someone else meanwhile
    if (b.kind === "held") await b.release();
    expect(await fs.readFile(lockFile(), "utf8")).toBe(theirs);
  });

  it("waits for a live holder and takes the lock once it is released; reports busy if it never is", async () => {
    await fs.writeFile(lockFile(), other(4242));
    setTimeout(() => void fs.unlink(lockFile()), 80);
    const a = await acquireBundleLock(nodeFsOps, dir, { alive: () => true });
    expect(a).toMatchObject({ kind: "held", waited: true });
    if (a.kind === "held") await a.release();
    await fs.writeFile(lockFile(), other(4242));
    const b = await acquireBundleLock(nodeFsOps, dir, { alive: () => true, waitMs: 60 });
    expect(b).toMatchObject({ kind: "busy", holder: `pid 4242 on ${hostname()}` });
  });

  it("breaks the lock of a process that is gone, one older than the stale age, and a torn one", async () => {
    await fs.writeFile(lockFile(), other(4242));
    expect((await acquireBundleLock(nodeFsOps, dir, { alive: () => false })).kind).toBe("held");
    await fs.writeFile(lockFile(), other(4242, Date.now() - LOCK_STALE_MS - 1));
    expect((await acquireBundleLock(nodeFsOps, dir, { alive: () => true })).kind).toBe("held");
    await fs.writeFile(lockFile(), ""); // created, never written: its writer died in between
    const old = new Date(Date.now() - 5_000);
    await fs.utimes(lockFile(), old, old);
    expect((await acquireBundleLock(nodeFsOps, dir, { alive: () => true, waitMs: 50 })).kind).toBe("held");
  });

  it("a disk that cannot take the lock file (read-only) lets bundling go on without it", async () => {
    const ro: FsOps = { ...nodeFsOps, writeFile: async () => Promise.reject(Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" })) };
    expect(await acquireBundleLock(ro, dir)).toEqual({ kind: "unlocked", reason: "EROFS" });
  });
});
