/**
 * A file's state, size, mtime and hash: whole up to HASH_FULL_MAX_BYTES, else of size, head and tail
 * ("sampled": a same-size edit in the middle shows in the mtime only). O_NONBLOCK: a FIFO never blocks.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import path from "node:path";
import type { WorkspaceFile } from "../checkpoint/schema.js";
import { readAtSync as readAt } from "../../infra/regular-file.js";

export const HASH_FULL_MAX_BYTES = 256 * 1024;
export const SAMPLE_BYTES = 16 * 1024;

/** Absolute path of a `files_modified` entry (relative entries are relative to cwd). */
export function resolveWorkspacePath(cwd: string, p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(cwd, p);
}

export function fingerprintFile(cwd: string, p: string): WorkspaceFile {
  const base = { path: p, size: null, mtime_ms: null, hash: null, hash_scope: "none" as const };
  const abs = resolveWorkspacePath(cwd, p);
  try {
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) return { ...base, state: "missing" };
    if (!st.isFile()) return { ...base, state: "other" };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    return { ...base, state: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable" };
  }
  let fd: number | null = null;
  try {
    fd = openSync(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile()) return { ...base, state: "other" };
    const size = st.size;
    const h = createHash("sha1");
    const full = size <= HASH_FULL_MAX_BYTES;
    // sampled: size, head, tail
    if (!full) h.update(`${size}\0`).update(readAt(fd, 0, SAMPLE_BYTES));
    h.update(full ? readAt(fd, 0, size) : readAt(fd, size - SAMPLE_BYTES, SAMPLE_BYTES));
    const hash = `sha1:${h.digest("hex")}`;
    const hash_scope = full ? "full" : "sampled";
    return { path: p, state: "present", size, mtime_ms: Math.floor(st.mtimeMs), hash, hash_scope };
  } catch {
    return { ...base, state: "unreadable" };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
