/** The subset of `node:fs/promises` this package uses, injectable so tests can fail any single call. */
import { promises as fsp, type Stats, statSync } from "node:fs";

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

/** `err.code` of a Node system error, or undefined. */
export function errorCode(err: unknown): string | undefined {
  const code = typeof err === "object" ? (err as { code?: unknown } | null)?.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/** Whether `p` is a directory (or a link to one); false when it cannot be read. */
export function isDirectory(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
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
