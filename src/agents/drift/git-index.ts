/**
 * A checkout's location, branch and HEAD read from its files without spawning git (unreadable is null), and
 * "is the work tree dirty?": each tracked file's stat against its `<gitDir>/index` (v2-4) entry, a same-size
 * mismatch settled by the blob hash. Untracked files and staged changes do not count; past INDEX_MAX_BYTES or
 * DIRTY_MAX_STATS the answer is null, never a guess of clean.
 */
import { createHash } from "node:crypto";
import { lstatSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { inflateSync } from "node:zlib";
import { isDirectory } from "../../infra/fs-ops.js";
import { processServices } from "../../infra/process-services.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";

export interface GitRepo {
  /** the work tree root (the directory holding `.git`) */
  workTree: string;
  /** per-worktree git dir (HEAD, index) */
  gitDir: string;
  /** shared git dir (refs, packed-refs, objects); equal to gitDir outside linked worktrees */
  commonDir: string;
}

const MAX_ASCENT = 64;
/** Files read here are tiny; anything larger is not a git file. */
const SMALL_FILE_MAX = 64 * 1024;
/** packed-refs can be large in big repositories; beyond this a packed branch is "unknown". */
const PACKED_REFS_MAX = 8 * 1024 * 1024;
const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const REF_LINE = /^ref:\s*(\S+)$/;

function readSmall(file: string, max = SMALL_FILE_MAX): string | null {
  return readSmallRegularFileSync(file, max)?.toString("utf8") ?? null;
}

/** The git dir a `.git` entry designates: the directory itself or the target of a `gitdir:` file. */
function gitDirOf(dotGit: string): string | null {
  if (isDirectory(dotGit)) return dotGit;
  const text = readSmall(dotGit);
  const m = text ? /^gitdir:[ \t]*(.+?)[ \t]*\r?$/m.exec(text) : null;
  if (!m?.[1]) return null;
  const target = path.resolve(path.dirname(dotGit), m[1]);
  return isDirectory(target) ? target : null;
}

/** The repository whose work tree contains `cwd`, or null. */
export function findGitRepo(cwd: string): GitRepo | null {
  for (let dir = path.resolve(cwd), i = 0; i < MAX_ASCENT; dir = path.dirname(dir), i++) {
    const gitDir = gitDirOf(path.join(dir, ".git"));
    if (gitDir && readSmall(path.join(gitDir, "HEAD")) !== null) {
      const common = readSmall(path.join(gitDir, "commondir"))?.trim();
      const commonDir = common ? path.resolve(gitDir, common) : gitDir;
      return { workTree: dir, gitDir, commonDir: isDirectory(commonDir) ? commonDir : gitDir };
    }
    if (path.dirname(dir) === dir) return null;
  }
  return null;
}

function packedRef(repo: GitRepo, ref: string): string | null {
  const text = readSmall(path.join(repo.commonDir, "packed-refs"), PACKED_REFS_MAX) ?? "";
  for (const line of text.split(/\r?\n/)) {
    const oid = line.endsWith(` ${ref}`) ? line.slice(0, -ref.length - 1) : "";
    if (OID_RE.test(oid)) return oid;
  }
  return null;
}

/** A ref's commit id: loose in the worktree's git dir, then the shared one, then packed-refs. */
export function resolveRef(repo: GitRepo, ref: string, depth = 0): string | null {
  if (depth > 5 || !/^refs\/[^\0\s]+$/.test(ref) || ref.split("/").includes("..")) return null;
  for (const dir of repo.gitDir === repo.commonDir ? [repo.gitDir] : [repo.gitDir, repo.commonDir]) {
    const text = readSmall(path.join(dir, ref))?.trim();
    if (!text) continue;
    if (OID_RE.test(text)) return text;
    const sym = REF_LINE.exec(text)?.[1];
    if (sym) return resolveRef(repo, sym, depth + 1);
  }
  return packedRef(repo, ref);
}

/** Branch and commit of HEAD. A detached HEAD has branch null; an unborn branch has head null. */
export function readGitHead(repo: GitRepo): { branch: string | null; head: string | null } {
  const text = readSmall(path.join(repo.gitDir, "HEAD"))?.trim() ?? "";
  if (OID_RE.test(text)) return { branch: null, head: text };
  const ref = REF_LINE.exec(text)?.[1];
  // reftable repositories keep HEAD pointing at this placeholder; their refs are not read here
  if (!ref || ref === "refs/heads/.invalid") return { branch: null, head: null };
  return { branch: ref.replace(/^refs\/heads\//, ""), head: resolveRef(repo, ref) };
}

/** How far HEAD moved along first parents in LOOSE commits; a packed one or WALK_MAX steps: unknown. */
export const WALK_MAX = 200;
const COMMIT_OBJECT_MAX = 1024 * 1024;

/** First parent of a loose commit; undefined: not loose or unreadable; null: a root commit. */
function firstParent(repo: GitRepo, oid: string): string | null | undefined {
  const file = path.join(repo.commonDir, "objects", oid.slice(0, 2), oid.slice(2));
  const raw = readSmallRegularFileSync(file, COMMIT_OBJECT_MAX);
  if (!raw) return undefined;
  let body: Buffer;
  try {
    body = inflateSync(raw, { maxOutputLength: COMMIT_OBJECT_MAX * 4 });
  } catch {
    return undefined;
  }
  const nul = body.indexOf(0);
  if (nul < 0 || !body.toString("latin1", 0, nul).startsWith("commit ")) return undefined;
  // headers end at the first blank line; "parent" lines follow "tree"
  const headerEnd = body.indexOf("\n\n", nul);
  const headers = body.toString("latin1", nul + 1, headerEnd < 0 ? body.length : headerEnd);
  const m = /^parent ([0-9a-f]{40}|[0-9a-f]{64})$/m.exec(headers);
  return m?.[1] ?? null;
}

/** Steps from `from` back to `to` along first parents, or null when not found within the bounds. */
function distance(repo: GitRepo, from: string, to: string): number | null {
  let cur: string | null | undefined = from;
  for (let n = 0; n <= WALK_MAX; n++) {
    if (cur === to) return n;
    if (!cur) return null;
    cur = firstParent(repo, cur);
  }
  return null;
}

/** Commits HEAD moved forward (new commits on top of the old HEAD) or back (reset to an ancestor). */
export function headMove(repo: GitRepo, from: string, to: string): { ahead: number | null; behind: number | null } {
  const ahead = distance(repo, to, from);
  if (ahead !== null) return { ahead, behind: null };
  return { ahead: null, behind: distance(repo, from, to) };
}

export const INDEX_MAX_BYTES = 4 * 1024 * 1024;
export const DIRTY_MAX_STATS = 1000;
/** A same-size stat mismatch on a larger file is not hashed: unknown. */
const BLOB_HASH_MAX_BYTES = 8 * 1024 * 1024;

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFGITLINK = 0o160000;

/** A tracked file git compares with the work tree (not assume-unchanged, skip-worktree or a submodule). */
interface IndexEntry {
  path: string;
  symlink: boolean;
  mtimeSec: number;
  mtimeNsec: number;
  size: number;
  oid: Buffer;
}

interface ParsedIndex {
  entries: IndexEntry[];
  /** an unmerged or intent-to-add entry: the tree is dirty whatever the files say */
  staged: boolean;
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

/** The index (v2-4), or null when the file is not an index this code understands. */
function parseGitIndex(buf: Buffer, oidBytes: number): ParsedIndex | null {
  try {
    if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "DIRC") return null;
    const version = buf.readUInt32BE(4);
    if (version < 2 || version > 4) return null;
    const index: ParsedIndex = { entries: [], staged: false };
    let pos = 12;
    let name = "";
    for (let i = buf.readUInt32BE(8); i > 0; i--) {
      const start = pos;
      pos += 40 + oidBytes;
      if (pos + 2 > buf.length) return null;
      const flags = buf.readUInt16BE(pos);
      const extended = (flags & 0x4000) !== 0;
      if (extended && version < 3) return null;
      const flags2 = extended ? buf.readUInt16BE(pos + 2) : 0;
      pos += extended ? 4 : 2;
      if (version === 4) {
        const [strip, p] = readVarint(buf, pos);
        const end = buf.indexOf(0, p);
        if (end < 0 || strip > name.length) return null;
        name = name.slice(0, name.length - strip) + buf.toString("utf8", p, end);
        pos = end + 1;
      } else {
        const end = buf.indexOf(0, pos);
        if (end < 0) return null;
        name = buf.toString("utf8", pos, end);
        pos = start + ((end - start + 8) & ~7);
      }
      if ((flags >> 12) & 3 || flags2 & 0x2000) index.staged = true;
      const kind = buf.readUInt32BE(start + 24) & S_IFMT;
      if (flags & 0x8000 || flags2 & 0x4000 || kind === S_IFGITLINK) continue;
      index.entries.push({
        path: name,
        symlink: kind === S_IFLNK,
        mtimeSec: buf.readUInt32BE(start + 8),
        mtimeNsec: buf.readUInt32BE(start + 12),
        size: buf.readUInt32BE(start + 36),
        oid: buf.subarray(start + 40, start + 40 + oidBytes),
      });
    }
    return index;
  } catch {
    return null;
  }
}

/** true: the file differs from its entry; false: same; null: could not tell. */
function entryChanged(workTree: string, e: IndexEntry, oidBytes: number): boolean | null {
  const file = path.join(workTree, ...e.path.split("/"));
  try {
    // number stats (half the cost of bigint ones): mtimeMs holds the nanoseconds to ~0.25 µs
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (!st || (e.symlink ? !st.isSymbolicLink() : !st.isFile()) || st.size % 2 ** 32 !== e.size) return true;
    const secs = Math.floor(st.mtimeMs / 1000);
    const nsec = (st.mtimeMs - secs * 1000) * 1e6;
    if (secs % 2 ** 32 === e.mtimeSec && (e.mtimeNsec === 0 || Math.abs(nsec - e.mtimeNsec) < 1000)) return false;
    // stat differs, size the same: compare contents the way git does
    const content = e.symlink ? readlinkSync(file, { encoding: "buffer" }) : readSmallRegularFileSync(file, BLOB_HASH_MAX_BYTES);
    if (!content) return null;
    const h = createHash(oidBytes === 32 ? "sha256" : "sha1");
    return !h.update(`blob ${content.length}\0`).update(content).digest().equals(e.oid);
  } catch {
    return null;
  }
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
const parsedIndexes = new Map<string, { stamp: string; index: ParsedIndex }>();

/** `<gitDir>/index` parsed, again only when its stamp changed (reused: 0.11 ms, docs/benchmarks.md). */
function readIndex(gitDir: string, oidBytes: number): ParsedIndex | null {
  const index = indexStamp(gitDir);
  const stamp = index === null ? null : `${oidBytes}:${index}`;
  const hit = parsedIndexes.get(gitDir);
  if (stamp !== null && hit?.stamp === stamp) return hit.index;
  const buf = readSmallRegularFileSync(path.join(gitDir, "index"), INDEX_MAX_BYTES);
  const parsed = buf ? parseGitIndex(buf, oidBytes) : null;
  parsedIndexes.delete(gitDir);
  if (stamp !== null && parsed) {
    parsedIndexes.set(gitDir, { stamp, index: parsed });
    if (parsedIndexes.size > PARSED_MAX) parsedIndexes.delete(parsedIndexes.keys().next().value!);
  }
  return parsed;
}

/** `priority` paths are checked first (or only: the rest known clean); `oidBytes`: 20 (SHA-1) or 32. */
export function workTreeDirty(gitDir: string, workTree: string, priority: readonly string[], oidBytes: number, onlyPriority = false): boolean | null {
  const index = readIndex(gitDir, oidBytes);
  if (!index) return null;
  if (index.staged) return true;
  const wanted = new Set(priority);
  const first = index.entries.filter((e) => wanted.has(e.path));
  const ordered = onlyPriority ? first : [...first, ...index.entries.filter((e) => !wanted.has(e.path))];
  let unknown = false;
  for (const [i, e] of ordered.entries()) {
    if (i >= DIRTY_MAX_STATS) return null;
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
  if (r && now - r.at <= CLEAN_REUSE_MS && r.head === head && r.index === indexStamp(gitDir)) return true;
  readings().delete(gitDir);
  return false;
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
