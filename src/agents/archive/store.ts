/**
 * A session key's archive file, `<stateDir>/context/archive/<dir>/segments.jsonl`: a JSON record per line, appended
 * whole in one write (a reader skips a torn line); a lock file serializes writers across processes.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import { BudgetCache } from "../../infra/budget-cache.js";
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

/** The records of `lines`; `badLines`: torn or corrupt, skipped. */
export function parseLines(lines: readonly string[]): { records: ArchiveRecord[]; badLines: number } {
  const records: ArchiveRecord[] = [];
  let badLines = 0;
  for (const line of lines) {
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

const openIfExists = (file: string): Promise<fsp.FileHandle | null> => unlessMissing(openRegularFile(file));

/** What a reader of an appended file has read: `offset` the end of its last whole line, `ino` the file's. */
type FileRead = { lines: string[]; offset: number; ino: number; fresh: boolean };

/** Whole lines of `file` past `offset` (from 0, `fresh`, if it shrank or, given `ino`, was replaced); null: none. */
export async function readNewLines(file: string, offset: number, ino?: number): Promise<FileRead | null> {
  const fh = await openIfExists(file);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    const fresh = st.size < offset || (ino !== undefined && st.ino !== ino);
    const from = fresh ? 0 : offset;
    const buf = Buffer.alloc(Math.max(0, st.size - from));
    await readRange(fh, buf, buf.length, from);
    // whole lines only (the zeros past a short read hold no newline)
    const end = buf.lastIndexOf(0x0a);
    const lines = end < 0 ? [] : buf.toString("utf8", 0, end).split("\n");
    return { lines, offset: from + end + 1, ino: st.ino, fresh };
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

/**
 * Appending without loading the archive, O(segments appended): dedup by content id against the file's tail (twice
 * the bytes appended, at least), followed once read; an older id costs a line on disk, never a duplicate hit.
 */
export interface ArchiveLimits {
  /** most segments kept; beyond it the oldest go (down to 90% so eviction is not per append) */
  maxSegments: number;
  /** segments archived longer ago than this are dropped */
  retentionDays: number;
}

export type AppendResult = { added: number; duplicates: number; evicted: number };

const MIN_TAIL_BYTES = 512 * 1024;
/** Bytes an id costs in memory (string + Set slot). */
const BYTES_PER_ID = 96;
/** Ids followed past this many: the next append scans the tail afresh (bounds memory). */
const MAX_IDS = 32_768;

export const tails = new BudgetCache<string, TailScan>("archive tail", 16 * 2 ** 20, (t) => t.ids.size * BYTES_PER_ID);

/** `overLimit`: the file's records (by seq range) exceed maxSegments, eviction is due. */
export type TailAppendResult = AppendResult & { overLimit: boolean };

/** Appends the drafts not among the archive's newest records. Holds the archive's lock; never loads the file. */
export function appendToTail(
  stateDir: string,
  sessionKey: string,
  drafts: readonly SegmentDraft[],
  origin: RecordOrigin,
  limits: ArchiveLimits,
): Promise<TailAppendResult> {
  const dir = archiveDir(stateDir, sessionKey);
  return withArchiveLock(dir, () => appendToTailLocked(path.join(dir, ARCHIVE_FILE), drafts, origin, limits));
}

/** appendToTail with the archive's lock already held (SessionArchive's append before it has loaded the file). */
export async function appendToTailLocked(
  file: string,
  drafts: readonly SegmentDraft[],
  origin: RecordOrigin,
  limits: ArchiveLimits,
  now = Date.now(),
): Promise<TailAppendResult> {
  const need = Math.max(MIN_TAIL_BYTES, 2 * drafts.reduce((bytes, d) => bytes + d.text.length + 160, 0));
  const known = tails.get(file);
  // followed while it covers `need` bytes and holds few enough ids, else scanned afresh
  const follow = known && (known.start === 0 || known.offset - known.start >= need) && known.ids.size < MAX_IDS;
  let scan = await scanArchiveTail(file, need, follow ? known : undefined);
  if (scan !== known) scan.start = Math.max(0, scan.offset - need);
  const { records, duplicates } = newRecords(drafts, (id) => scan.ids.has(id), scan.lastSeq + 1, now, origin);
  for (const r of records) scan.ids.add(r.id);
  scan.lastSeq += records.length;
  if (records.length > 0) {
    if (scan.firstSeq === 0) scan.firstSeq = records[0]!.seq;
    // we hold the lock: the file is what we scanned plus these lines
    scan.offset = await appendLines(file, encodeRecords(records));
    if (scan.ino === 0) scan = { ...(await scanArchiveTail(file, need)), start: 0 };
  }
  tails.set(file, scan);
  const count = scan.lastSeq - scan.firstSeq + 1;
  return { added: records.length, duplicates, evicted: 0, overLimit: scan.firstSeq > 0 && count > limits.maxSegments };
}

/** How every record line starts (serialize writes `v` then `id` first): the tail scan reads ids and seqs from this
 * fixed prefix, a few ms where a full parse of 20k records costs ~0.4 s. */
const ID_PREFIX = Buffer.from('{"v":1,"id":"', "latin1");
const SEQ_KEY = Buffer.from('","seq":', "latin1");

/** The file's newest part for an append that loads nothing: ids, highest seq, first seq (with lastSeq: about how
 * many records), size scanned to (end of its last whole line), and where the scan began. */
type TailScan = { ids: Set<string>; lastSeq: number; firstSeq: number; offset: number; ino: number; start: number };
const emptyScan = (ino: number): TailScan => ({ ids: new Set(), lastSeq: 0, firstSeq: 0, offset: 0, ino, start: 0 });

/** id and seq of one record line buf[start, nl), by the fixed layout (`{"v":1,"id":"<16 hex>","seq":<digits>,`) or
 * by parsing; null for another line. */
function idSeqOf(buf: Buffer, start: number, nl: number): { id: string; seq: number } | null {
  const at = start + 29 + SEQ_KEY.length;
  const fixed = nl - start > 31 && buf[nl - 1] === 0x7d && buf.compare(ID_PREFIX, 0, 13, start, start + 13) === 0;
  if (fixed && buf.compare(SEQ_KEY, 0, SEQ_KEY.length, start + 29, at) === 0) {
    let seq = 0;
    let i = at;
    for (; i < nl && buf[i]! >= 0x30 && buf[i]! <= 0x39; i++) seq = seq * 10 + (buf[i]! - 0x30);
    if (i > at && buf[i] === 0x2c) return { id: buf.toString("latin1", start + 13, start + 29), seq };
  }
  const r = parseRecord(buf.toString("utf8", start, nl));
  return r ? { id: r.id, seq: r.seq } : null;
}

/** Ids of the file's last `bytes` (and its first seq), or with `from` of what was appended since; a rewrite: afresh. */
async function scanArchiveTail(file: string, bytes: number, from?: TailScan): Promise<TailScan> {
  const fh = await openIfExists(file);
  if (!fh) return emptyScan(0);
  try {
    const st = await fh.stat();
    const grown = from && from.ino === st.ino && from.offset <= st.size;
    const out = grown ? from : emptyScan(st.ino);
    if (!grown && st.size > 0) {
      const head = Buffer.allocUnsafe(Math.min(st.size, 64 * 1024));
      const { bytesRead } = await fh.read(head, 0, head.length, 0);
      const nl = head.subarray(0, bytesRead).indexOf(0x0a);
      out.firstSeq = nl > 0 ? (idSeqOf(head, 0, nl)?.seq ?? 0) : 0;
    }
    const start = grown ? from.offset : Math.max(0, st.size - bytes);
    const len = st.size - start;
    if (len <= 0) return out;
    const buf = Buffer.allocUnsafe(len);
    const read = await readRange(fh, buf, len, start);
    // from the middle of the file: the first (partial) line is not a record
    let at = start === 0 || grown ? 0 : buf.indexOf(0x0a) + 1;
    for (let nl = buf.indexOf(0x0a, at); nl >= 0 && nl < read; nl = buf.indexOf(0x0a, at)) {
      const r = nl > at ? idSeqOf(buf, at, nl) : null;
      if (r) {
        out.ids.add(r.id);
        if (r.seq > out.lastSeq) out.lastSeq = r.seq;
      }
      at = nl + 1;
    }
    out.offset = start + at;
    return out;
  } finally {
    await fh.close();
  }
}
