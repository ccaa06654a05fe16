/**
 * Windows semantics on any OS: session directory names are valid win32 file names, and the
 * atomic rename retries EPERM/EBUSY (injected through FsOps), then succeeds or fails with a
 * clear error naming the code and the file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointSessionDir, sessionDirName } from "../../src/infra/session-dir.js";
import { writeFileAtomic } from "../../src/infra/atomic-file.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { fsError, removeDirs, tempDir } from "./helpers.js";

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f]/;

export function expectValidWin32Name(name: string): void {
  expect(name.length).toBeGreaterThan(0);
  expect(name.length).toBeLessThanOrEqual(255);
  expect(name).not.toMatch(FORBIDDEN);
  expect(name).not.toMatch(/[. ]$/);
  expect(name).not.toMatch(RESERVED);
  expect(name.split(".")[0]).not.toMatch(RESERVED);
  expect([".", ".."]).not.toContain(name);
  // path.win32 keeps it as one segment
  expect(path.win32.basename(path.win32.join("C:\\state", name))).toBe(name);
  expect(path.win32.parse(path.win32.join("C:\\state", name)).dir).toBe("C:\\state");
}

const KEYS = [
  "CON", "con", "PRN", "AUX", "NUL", "COM1", "LPT1", "com9", "lpt9", "COM¹",
  "CON.txt", "nul.tar.gz", "AUX.", "PRN ", "COM1 .log", "LPT1:",
  "trailing dot.", "trailing space ", "...", "..", ".", " ", "",
  "a:b", "a/b", "a\\b", "a_b", "C:\\Windows\\System32", "\\\\?\\C:\\x", "<>:\"/\\|?*",
  "x".repeat(255), "y".repeat(300), "é".repeat(300), "\u{1F600}".repeat(200), "\u0000\u001f",
  "agent:main:telegram:direct:42",
];

describe("sessionDirName on win32", () => {
  it("every adversarial key maps to a valid, distinct win32 directory name", () => {
    const seen = new Map<string, string>();
    for (const key of KEYS) {
      const name = sessionDirName(key);
      expectValidWin32Name(name);
      expect(seen.has(name), `${JSON.stringify(key)} collides with ${JSON.stringify(seen.get(name))}`).toBe(false);
      seen.set(name, key);
      // the whole path stays short enough for MAX_PATH-limited tools under a typical state dir
      const full = path.win32.join("C:\\Users\\someone\\.openclaw\\context\\checkpoints", name, "cp_1000.yaml");
      expect(full.length).toBeLessThan(260);
    }
    expect(checkpointSessionDir("/s", "CON")).not.toMatch(/[/\\]CON$/i);
  });
});

describe("atomic rename fallback (Windows EPERM/EBUSY)", () => {
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  function flakyRename(code: "EPERM" | "EBUSY", failures: number, opts: { failWriteFile?: boolean } = {}) {
    let renames = 0;
    const fs: FsOps = {
      ...nodeFsOps,
      rename: async (a, b) => {
        renames++;
        if (renames <= failures) throw fsError(code, "rename", b);
        return nodeFsOps.rename(a, b);
      },
      writeFile: async (p, d, o) => {
        if (opts.failWriteFile) throw fsError(code, "open", p);
        return nodeFsOps.writeFile(p, d, o);
      },
    };
    return { fs, renames: () => renames };
  }

  for (const code of ["EPERM", "EBUSY"] as const) {
    it(`${code} a few times: retried, then the rename succeeds`, async () => {
      const dir = tempDir("cm-win-");
      dirs.push(dir);
      const target = path.join(dir, "_latest.json");
      const f = flakyRename(code, 3);
      await writeFileAtomic(target, "v1", { fs: f.fs });
      expect(readFileSync(target, "utf8")).toBe("v1");
      expect(f.renames()).toBe(4);
    });

    it(`${code} persistently: falls back to an in-place write`, async () => {
      const dir = tempDir("cm-win-");
      dirs.push(dir);
      const target = path.join(dir, "thread.json");
      const f = flakyRename(code, 1000);
      await writeFileAtomic(target, "v2", { fs: f.fs });
      expect(readFileSync(target, "utf8")).toBe("v2");
      expect(f.renames()).toBeGreaterThan(1);
    });

    it(`${code} persistently and the fallback fails too: a clear error, no temp file left`, async () => {
      const dir = tempDir("cm-win-");
      dirs.push(dir);
      const target = path.join(dir, "resources.json");
      const f = flakyRename(code, 1000, { failWriteFile: true });
      const err = await writeFileAtomic(target, "v3", { fs: f.fs }).then(
        () => null,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(err?.code).toBe(code);
      expect(err?.message).toContain(code);
      expect(err?.message).toContain(target);
      const { readdirSync } = await import("node:fs");
      expect(readdirSync(dir)).toEqual([]);
    });
  }
});
