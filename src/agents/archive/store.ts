/**
 * A session key's archive file, `<stateDir>/context/archive/<dir>/segments.jsonl`: a JSON record per line, appended
 * whole in one write (a reader skips a torn line); a lock file serializes writers across processes.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import { makeDirs } from "../../infra/fs-ops.js";
import { sessionDirName } from "../../infra/session-dir.js";
import type { SegmentDraft, SegmentRole } from "./segments.js";
import { NotAFileError, openRegularFile, readRange, readRegularFile } from "../../infra/regular-file.js";

export const ARCHIVE_FILE = "segments.jsonl";
/** the saved full-text index (a cache of segments.jsonl; see SearchIndex.serialize) */
export const INDEX_FILE = "index.json";
const LOCK_FILE = "segments.lock";
const FILE_MODE = 0o600;
export const DAY_MS = 86_400_000;
const DIR_MODE = 0o700;

/**
 * One archived segment, as stored (one line of segments.jsonl): `id` is 16 hex of sha256 over role, tool, target
 * and text (the dedup key), `seq` its increasing position in this archive, `at` when it was archived (retention),
 * `session` the pi session id it came from and `compaction` the compaction of it that archived it (1 = first).
 */
export interface ArchiveRecord extends SegmentDraft {
  v: 1;
  id: string;
  seq: number;
  at: number;
  session: string;
  compaction: number;
}

export type RecordOrigin = Pick<ArchiveRecord, "session" | "compaction">;

/** The drafts neither `archived` nor repeated, numbered from `firstSeq`; `duplicates` counts the rest. */
export function newRecords(drafts: readonly SegmentDraft[], archived: (id: string) => boolean, firstSeq: number, at: number, origin: RecordOrigin): { records: ArchiveRecord[]; duplicates: number } {
  const records: ArchiveRecord[] = [];
  const seen = new Set<string>();
  for (const d of drafts) {
    const id = segmentId(d);
    if (archived(id) || seen.has(id)) continue;
    seen.add(id);
    records.push({ v: 1, id, seq: firstSeq + records.length, ...d, at, session: origin.session, compaction: origin.compaction });
  }
  return { records, duplicates: drafts.length - records.length };
}

const ROLES: ReadonlySet<SegmentRole> = new Set(["user", "host", "assistant", "tool_call", "tool_result", "bash"]);

export const archiveRoot = (stateDir: string): string => path.join(stateDir, "context", "archive");

export const archiveDir = (stateDir: string, sessionKey: string): string =>
  path.join(archiveRoot(stateDir), sessionDirName(sessionKey));

// key.json: the session key of an archive directory (its name keeps only a prefix and a hash), written once per
// process; cross-session search lists an agent's keys by it
const KEY_FILE = "key.json";
const keysWritten = new Set<string>();

/** Records the key and agent of the key's archive directory (once per process). */
export async function recordArchiveKey(stateDir: string, sessionKey: string, agent: string | null): Promise<void> {
  const dir = archiveDir(stateDir, sessionKey);
  if (keysWritten.has(dir)) return;
  await makeDirs(dir, DIR_MODE);
  await writeFileAtomic(path.join(dir, KEY_FILE), `${JSON.stringify({ v: 1, sessionKey, agent })}\n`, { mode: 0o600 });
  keysWritten.add(dir);
}

/** Keys of `agent` with an archive directory under `stateDir` (their key.json), `except` left out. */
export async function archiveKeysOfAgent(stateDir: string, agent: string, except: string): Promise<string[]> {
  const dirs = await fsp.readdir(archiveRoot(stateDir)).catch(() => [] as string[]);
  const out: string[] = [];
  const self = archiveDir(stateDir, except);
  for (const d of dirs) {
    const dir = path.join(archiveRoot(stateDir), d);
    if (dir === self) continue;
    // no sidecar (never checkpointed) or unreadable: not listed
    const text = await readRegularFile(path.join(dir, KEY_FILE), "utf8").catch(() => "");
    const v = orNull(() => JSON.parse(text) as { sessionKey?: unknown; agent?: unknown } | null);
    const key = typeof v?.sessionKey === "string" && v.agent === agent ? v.sessionKey : null;
    if (key !== null && archiveDir(stateDir, key) === dir) out.push(key);
  }
  return out.sort();
}

/** 16 hex of sha256 over the parts joined by NUL: the dedup key of segments and knowledge records. */
export const hashId = (...parts: string[]): string =>
  createHash("sha256").update(parts.join("\0"), "utf8").digest("hex").slice(0, 16);

export const segmentId = (d: Pick<SegmentDraft, "role" | "tool" | "target" | "text">): string =>
  hashId(d.role, d.tool ?? "", d.target ?? "", d.text);

/** A parsed line, or null when it is not a valid record (torn write, hand edit, other version). */
export function parseRecord(line: string): ArchiveRecord | null {
  const r = orNull(() => JSON.parse(line) as Record<string, unknown> | null);
  if (!r || typeof r !== "object") return null;
  if (r.v !== 1 || typeof r.id !== "string" || !/^[0-9a-f]{16}$/.test(r.id)) return null;
  if (typeof r.text !== "string" || typeof r.session !== "string" || !ROLES.has(r.role as SegmentRole)) return null;
  for (const k of ["seq", "t", "at", "compaction"]) if (typeof r[k] !== "number" || !Number.isFinite(r[k])) return null;
  for (const k of ["tool", "target"]) if (r[k] !== undefined && typeof r[k] !== "string") return null;
  for (const k of ["part", "parts"]) if (r[k] !== undefined && (typeof r[k] !== "number" || !Number.isInteger(r[k]))) return null;
  return r as unknown as ArchiveRecord;
}

/** The complete lines of `buf` (none when it has no newline) and the bytes they take. */
function wholeLines(buf: Buffer): { lines: string[]; consumed: number } {
  const end = buf.lastIndexOf(0x0a);
  return { lines: end < 0 ? [] : buf.toString("utf8", 0, end).split("\n"), consumed: end + 1 };
}

/** The records of `src`'s lines (of a buffer, its complete ones); `badLines`: torn or corrupt, skipped. */
export function parseLines(src: Buffer | readonly string[]): { records: ArchiveRecord[]; badLines: number } {
  const records: ArchiveRecord[] = [];
  let badLines = 0;
  for (const line of Buffer.isBuffer(src) ? wholeLines(src).lines : src) {
    if (!line) continue;
    const r = parseRecord(line);
    if (r) records.push(r);
    else badLines++;
  }
  return { records, badLines };
}

/** `fn()`, or null when it throws (a file gone or unreadable). */
export function orNull<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

const unlessMissing = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  });

export const openIfExists = (file: string): Promise<fsp.FileHandle | null> => unlessMissing(openRegularFile(file));

/** What a reader of an appended file has read: `offset` the end of its last whole line, `ino` the file's. */
export type FileRead = { lines: string[]; offset: number; ino: number; fresh: boolean };

/**
 * The whole lines of `file` past `offset`, or from 0 (`fresh`) when it shrank or, given `ino`, was replaced; null
 * when there is no file.
 */
export async function readNewLines(file: string, offset: number, ino?: number): Promise<FileRead | null> {
  const fh = await openIfExists(file);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    const fresh = st.size < offset || (ino !== undefined && st.ino !== ino);
    const from = fresh ? 0 : offset;
    const buf = Buffer.alloc(Math.max(0, st.size - from));
    const { lines, consumed } = wholeLines(buf.subarray(0, await readRange(fh, buf, buf.length, from)));
    return { lines, offset: from + consumed, ino: st.ino, fresh };
  } finally {
    await fh.close();
  }
}

/** The archive's records; a missing file reads as empty. */
export async function readArchiveFile(file: string): Promise<{ records: ArchiveRecord[]; badLines: number }> {
  return parseLines((await readNewLines(file, 0))?.lines ?? []);
}

export const statArchive = (file: string): Promise<{ size: number; ino: number } | null> =>
  unlessMissing(fsp.stat(file));

export const serialize = (records: readonly ArchiveRecord[]): string =>
  records.map((r) => `${JSON.stringify(r)}\n`).join("");

/** `serialize(records)` encoded a line at a time: one non-Latin-1 char made the joined string
 * two-byte, costing 2-3x to encode (a 1.9 MB append: ~100 vs ~45 ms). */
export function encodeRecords(records: readonly ArchiveRecord[]): Buffer {
  const lines = records.map((r) => Buffer.from(`${JSON.stringify(r)}\n`, "utf8"));
  return lines.length === 1 ? lines[0]! : Buffer.concat(lines);
}

/** Appends whole lines in one fsync'd write (after a newline if a torn write left none); returns the new size. */
export async function appendLines(file: string, data: string | Buffer): Promise<number> {
  const fh = await openMakingDir(file, "a+");
  try {
    const st = await fh.stat();
    // a FIFO opens read-write without blocking, but a write larger than its buffer would park
    // this thread forever; /dev/zero takes anything: neither is our file
    if (!st.isFile()) throw new NotAFileError(file);
    const last = Buffer.alloc(1);
    if (st.size > 0) await fh.read(last, 0, 1, st.size - 1);
    const body = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const bytes = st.size > 0 && last[0] !== 0x0a ? Buffer.concat([Buffer.from("\n"), body]) : body;
    await fh.write(bytes, 0, bytes.length);
    await fh.datasync();
    return st.size + bytes.length;
  } finally {
    await fh.close();
  }
}

/** Opens `file`, making its directory (0700) only when missing (a mkdir per append cost a call per turn). */
async function openMakingDir(file: string, flags: string): Promise<fsp.FileHandle> {
  const fh = await unlessMissing(fsp.open(file, flags, FILE_MODE));
  if (fh) return fh;
  await makeDirs(path.dirname(file), DIR_MODE);
  return fsp.open(file, flags, FILE_MODE);
}

export async function rewriteArchiveFile(file: string, records: readonly ArchiveRecord[]): Promise<void> {
  await makeDirs(path.dirname(file), DIR_MODE);
  await writeFileAtomic(file, serialize(records), { mode: FILE_MODE });
}

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

/** Runs `fn` holding `<dir>/segments.lock`; a lock past LOCK_STALE_MS is taken over, LOCK_WAIT_MS of waiting fails. */
export async function withArchiveLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, LOCK_FILE);
  const started = Date.now();
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      const fh = await openMakingDir(lock, "wx");
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const st = await fsp.stat(lock).catch(() => null);
      if (!st) continue; // released meanwhile
      if (Date.now() - st.mtimeMs > LOCK_STALE_MS) {
        await fsp.unlink(lock).catch(() => undefined);
        continue;
      }
      if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`archive lock busy: ${lock}`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  try {
    return await fn();
  } finally {
    await fsp.unlink(lock).catch(() => undefined);
  }
}
