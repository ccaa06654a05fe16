/**
 * "Is the work tree dirty?" without spawning git: each tracked file's stat against its `<gitDir>/index`
 * (v2-4) entry, a same-size mismatch settled by the blob hash. Untracked files and staged changes do
 * not count; past INDEX_MAX_BYTES or DIRTY_MAX_STATS the answer is null, never a guess of clean.
 */
import { createHash } from "node:crypto";
import { lstatSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { processServices } from "../../infra/process-services.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";

export const INDEX_MAX_BYTES = 4 * 1024 * 1024;
export const DIRTY_MAX_STATS = 1000;
/** A same-size stat mismatch on a larger file is not hashed: unknown. */
const BLOB_HASH_MAX_BYTES = 8 * 1024 * 1024;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFGITLINK = 0o160000;

export interface IndexEntry {
  path: string;
  mode: number;
  mtimeSec: number;
  mtimeNsec: number;
  size: number;
  oid: Buffer;
  stage: number;
  /** assume-unchanged or skip-worktree: git itself does not look at the file */
  ignoreWorktree: boolean;
  intentToAdd: boolean;
}

/** git's offset varint (index v4 path prefix compression). */
function readVarint(buf: Buffer, pos: number): [number, number] {
  let c = buf[pos++]!;
  let val = c & 127;
  while (c & 128) {
    if (pos >= buf.length) throw new Error("truncated varint");
    c = buf[pos++]!;
    val = (val + 1) * 128 + (c & 127);
  }
  return [val, pos];
}

/** Index entries, or null when the file is not an index this code understands. */
export function parseGitIndex(buf: Buffer, oidBytes: number): IndexEntry[] | null {
  try {
    if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return null;
    const version = buf.readUInt32BE(4);
    if (version < 2 || version > 4) return null;
    const count = buf.readUInt32BE(8);
    const entries: IndexEntry[] = [];
    let pos = 12;
    let prev = "";
    for (let i = 0; i < count; i++) {
      const start = pos;
      if (pos + 40 + oidBytes + 2 > buf.length) return null;
      const mtimeSec = buf.readUInt32BE(pos + 8);
      const mtimeNsec = buf.readUInt32BE(pos + 12);
      const mode = buf.readUInt32BE(pos + 24);
      const size = buf.readUInt32BE(pos + 36);
      const oid = buf.subarray(pos + 40, pos + 40 + oidBytes);
      pos += 40 + oidBytes;
      const flags = buf.readUInt16BE(pos);
      pos += 2;
      let flags2 = 0;
      if (flags & 0x4000) {
        if (version < 3) return null;
        flags2 = buf.readUInt16BE(pos);
        pos += 2;
      }
      let name: string;
      if (version === 4) {
        const [strip, p] = readVarint(buf, pos);
        const end = buf.indexOf(0, p);
        if (end < 0 || strip > prev.length) return null;
        name = prev.slice(0, prev.length - strip) + buf.toString("utf8", p, end);
        pos = end + 1;
      } else {
        const end = buf.indexOf(0, pos);
        if (end < 0) return null;
        name = buf.toString("utf8", pos, end);
        pos = start + ((end - start + 8) & ~7);
      }
      prev = name;
      entries.push({
        path: name,
        mode,
        mtimeSec,
        mtimeNsec,
        size,
        oid,
        stage: (flags >> 12) & 3,
        ignoreWorktree: (flags & 0x8000) !== 0 || (flags2 & 0x4000) !== 0,
        intentToAdd: (flags2 & 0x2000) !== 0,
      });
    }
    return entries;
  } catch {
    return null;
  }
}

function blobId(content: Buffer, oidBytes: number): Buffer {
  const h = createHash(oidBytes === 32 ? "sha256" : "sha1");
  h.update(`blob ${content.length}\0`);
  h.update(content);
  return h.digest();
}

/** true: the file differs from its entry; false: same; null: could not tell. */
function entryChanged(workTree: string, e: IndexEntry, oidBytes: number): boolean | null {
  const file = path.join(workTree, ...e.path.split("/"));
  let st;
  try {
    // number stats (half the cost of bigint ones): mtimeMs holds the nanoseconds to ~0.25 µs
    st = lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!st) return true; // deleted
  const kind = e.mode & S_IFMT;
  if (kind === S_IFLNK ? !st.isSymbolicLink() : !st.isFile()) return true;
  if (st.size % 4294967296 !== e.size) return true;
  const secs = Math.floor(st.mtimeMs / 1000);
  const nsec = (st.mtimeMs - secs * 1000) * 1e6;
  if (secs % 4294967296 === e.mtimeSec && (e.mtimeNsec === 0 || Math.abs(nsec - e.mtimeNsec) < 1000)) return false;
  // stat differs, size the same: compare contents the way git does
  let content: Buffer | null;
  if (kind === S_IFLNK) {
    try {
      content = Buffer.from(readlinkSync(file, { encoding: "buffer" }));
    } catch {
      content = null;
    }
  } else {
    content = readSmallRegularFileSync(file, BLOB_HASH_MAX_BYTES);
  }
  if (!content) return null;
  return !blobId(content, oidBytes).equals(e.oid);
}

/** What git changes when it replaces the index (a lock file renamed over it); null: unreadable. */
function indexStamp(gitDir: string): string | null {
  try {
    const st = statSync(path.join(gitDir, "index"), { throwIfNoEntry: false });
    return st?.isFile() ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : null;
  } catch {
    return null;
  }
}

/** Repositories whose parsed index is kept (each holds its index file's buffer, ≤ INDEX_MAX_BYTES). */
const PARSED_MAX = 4;
const parsedIndexes = new Map<string, { stamp: string; entries: IndexEntry[] }>();

/** `<gitDir>/index`'s entries, parsed again only when its stamp changed (reused: 0.11 ms, docs/benchmarks.md). */
function indexEntries(gitDir: string, oidBytes: number): IndexEntry[] | null {
  const file = path.join(gitDir, "index");
  const index = indexStamp(gitDir);
  const stamp = index === null ? null : `${oidBytes}:${index}`;
  const hit = stamp === null ? undefined : parsedIndexes.get(gitDir);
  if (hit && hit.stamp === stamp) return hit.entries;
  const buf = readSmallRegularFileSync(file, INDEX_MAX_BYTES);
  const entries = buf ? parseGitIndex(buf, oidBytes) : null;
  parsedIndexes.delete(gitDir);
  if (stamp !== null && entries) {
    parsedIndexes.set(gitDir, { stamp, entries });
    if (parsedIndexes.size > PARSED_MAX) parsedIndexes.delete(parsedIndexes.keys().next().value!);
  }
  return entries;
}

/** `priority` paths are checked first (or only: the rest known clean); `oidBytes`: 20 (SHA-1) or 32. */
export function workTreeDirty(gitDir: string, workTree: string, priority: readonly string[], oidBytes: number, onlyPriority = false): boolean | null {
  const entries = indexEntries(gitDir, oidBytes);
  if (!entries) return null;
  if (entries.some((e) => e.stage !== 0 || e.intentToAdd)) return true;
  const wanted = new Set(priority);
  const first = entries.filter((e) => wanted.has(e.path));
  const ordered = onlyPriority ? first : [...first, ...entries.filter((e) => !wanted.has(e.path))];
  let checked = 0;
  let unknown = false;
  for (const e of ordered) {
    if (e.ignoreWorktree || (e.mode & S_IFMT) === S_IFGITLINK) continue;
    if (checked++ >= DIRTY_MAX_STATS) return null;
    const changed = entryChanged(workTree, e, oidBytes);
    if (changed === true) return true;
    if (changed === null) unknown = true;
  }
  return unknown ? null : false;
}

/**
 * A clean reading is reused for CLEAN_REUSE_MS while HEAD and the index hold (a whole-tree scan:
 * 3.1 ms CPU on 602 entries, reused 0.5 ms; docs/benchmarks.md); a dirty or unknown one never.
 */
export const CLEAN_REUSE_MS = 2_000;
const MAX_READINGS = 32;

interface CleanReading {
  at: number;
  head: string | null;
  index: string;
}

// by git dir, the oldest first (at most MAX_READINGS)
declare module "../../infra/process-services.js" {
  interface ProcessServices { cleanReadings?: Map<string, CleanReading> }
}

const readings = (): Map<string, CleanReading> => (processServices().cleanReadings ??= new Map());

/** Whether `gitDir`'s work tree was read clean within CLEAN_REUSE_MS, with the same HEAD and index. */
export function recentlyClean(gitDir: string, head: string | null, now = Date.now()): boolean {
  const r = readings().get(gitDir);
  if (!r) return false;
  if (now - r.at > CLEAN_REUSE_MS || r.head !== head || r.index !== indexStamp(gitDir)) {
    readings().delete(gitDir);
    return false;
  }
  return true;
}

/** Records a whole-tree reading: a clean one is kept, any other forgets the previous. */
export function noteReading(gitDir: string, head: string | null, dirty: boolean | null, now = Date.now()): void {
  const map = readings();
  map.delete(gitDir);
  if (dirty !== false) return;
  const index = indexStamp(gitDir);
  if (index === null) return;
  map.set(gitDir, { at: now, head, index });
  if (map.size > MAX_READINGS) map.delete(map.keys().next().value!);
}
