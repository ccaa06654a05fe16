/**
 * The subset of `node:fs/promises` this package uses, injectable so tests can fail any single call; and
 * mkdir -p without `{ recursive: true }`, which loops forever under /proc and /sys (Node 20, 24).
 */
import { mkdirSync, promises as fsp, type Stats, statSync } from "node:fs";
import path from "node:path";

export interface FsOps {
  mkdir(path: string, opts: { recursive?: boolean; mode?: number }): Promise<string | undefined>;
  /** flags as in `fs.open` ("wx", "r", ...) */
  open(path: string, flags: string, mode?: number): Promise<Pick<fsp.FileHandle, "writeFile" | "sync" | "close">>;
  writeFile(path: string, data: string, opts?: { mode?: number; flag?: string }): Promise<void>;
  readFile(path: string, encoding: "utf8"): Promise<string>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  stat(path: string): Promise<Pick<Stats, "size" | "mtimeMs" | "isFile" | "isDirectory">>;
  chmod(path: string, mode: number): Promise<void>;
  rm(path: string, opts?: { recursive?: boolean; force?: boolean }): Promise<void>;
}

/** The real thing. Each method calls through `fsp` at call time, so spies on `fsp` still work. */
export const nodeFsOps: FsOps = {
  mkdir: (path, opts) => fsp.mkdir(path, opts),
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  writeFile: (path, data, opts) => fsp.writeFile(path, data, opts),
  readFile: (path, encoding) => fsp.readFile(path, encoding),
  rename: (from, to) => fsp.rename(from, to),
  link: (existing, newPath) => fsp.link(existing, newPath),
  unlink: (path) => fsp.unlink(path),
  readdir: (path) => fsp.readdir(path),
  stat: (path) => fsp.stat(path),
  chmod: (path, mode) => fsp.chmod(path, mode),
  rm: (path, opts) => fsp.rm(path, opts),
};

export function errorCode(err: unknown): string | undefined {
  const code = typeof err === "object" ? (err as { code?: unknown } | null)?.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** `fn()`, or `fallback` when it throws (a file already gone, a log not yet written, a broken logger). */
export function tryOr<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** Whether `p` is a directory (or a link to one); false when it cannot be read. */
export function isDirectory(p: string): boolean {
  return tryOr(() => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false, false);
}

/** Entries of a directory; [] when it does not exist (other errors are thrown). */
export async function readdirOrEmpty(fs: FsOps, dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return [];
    throw err;
  }
}

/** Deeper than any real state dir; bounds the recursion on a hostile path. */
const MAX_LEVELS = 256;

export async function makeDirs(dir: string, mode: number, fs: Pick<FsOps, "mkdir" | "stat"> = nodeFsOps): Promise<void> {
  /** Makes `dir`; on ENOENT its parent first, then `dir` once more. */
  const makeLevel = async (dir: string, level: number): Promise<void> => {
    for (let again = false; ; again = true) {
      try {
        await fs.mkdir(dir, { mode });
        return;
      } catch (err) {
        const isDir = errorCode(err) === "EEXIST" && (await fs.stat(dir).catch(() => null))?.isDirectory();
        if (stands(dir, err, isDir, again, level)) return;
        await makeLevel(path.dirname(dir), level + 1);
      }
    }
  };
  await makeLevel(path.resolve(dir), 0);
}

export function makeDirsSync(dir: string, mode: number): void {
  const makeLevel = (dir: string, level: number): void => {
    for (let again = false; ; again = true) {
      try {
        mkdirSync(dir, { mode });
        return;
      } catch (err) {
        if (stands(dir, err, errorCode(err) === "EEXIST" && isDirectory(dir), again, level)) return;
        makeLevel(path.dirname(dir), level + 1);
      }
    }
  };
  makeLevel(path.resolve(dir), 0);
}

/**
 * After mkdir(dir) failed: true when it stands (EEXIST on a directory or a link to one), false to
 * make the parent and try once more; throws otherwise (a file in the way is the error).
 */
function stands(dir: string, err: unknown, isDir: boolean | undefined, again: boolean, level: number): boolean {
  if (isDir) return true;
  const code = errorCode(err);
  if (code === "EEXIST") {
    const msg = `cannot make directory ${JSON.stringify(dir)}: a file that is not a directory is in the way`;
    throw Object.assign(new Error(msg), { code: "ENOTDIR", cause: err });
  }
  if (code !== "ENOENT" || again || path.dirname(dir) === dir || level >= MAX_LEVELS) throw err;
  return false;
}
