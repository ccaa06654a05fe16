/**
 * The archive file of one session key: `<stateDir>/context/archive/<dir>/segments.jsonl`,
 * one JSON record per line (docs/archive.md).
 *
 * Crash safety: records are only ever appended, whole lines in one write; a reader takes
 * only newline-terminated lines and skips a line that does not parse, and the next append
 * after a torn write starts on a fresh line. So an interrupted append can lose at most the
 * records it was writing, never what was there. Rewrites (eviction, retention) go through
 * writeFileAtomic (tmp + fsync + rename). Appends and rewrites of one file are serialized
 * across processes by a lock file, so a rewrite never drops another writer's append.
 */
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import { makeDirs } from "../../infra/make-dirs.js";
import { sessionDirName } from "../../infra/session-dir.js";
import type { SegmentDraft, SegmentRole } from "./segments.js";
import { NotAFileError } from "../../infra/capped-read.js";
import { openRegularFile } from "../../infra/regular-file.js";

export const ARCHIVE_FILE = "segments.jsonl";
/** the saved full-text index (a cache of segments.jsonl; see SearchIndex.serialize) */
export const INDEX_FILE = "index.json";
const LOCK_FILE = "segments.lock";
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** One archived segment, as stored (one line of segments.jsonl). */
export interface ArchiveRecord extends SegmentDraft {
  /** record format version */
  v: 1;
  /** 16 hex of sha256 over role, tool, target and text: the dedup key */
  id: string;
  /** position in this archive, increasing */
  seq: number;
  /** when it was archived, ms since epoch (retention) */
  at: number;
  /** pi session id the message came from */
  session: string;
  /** the compaction of that session that archived it (1 = first) */
  compaction: number;
}

/** Where a record came from: the session id and the compaction of it that archived it. */
export interface RecordOrigin {
  session: string;
  compaction: number;
}

/**
 * The records of `drafts` not archived yet (`archived`: an id already in the file) and not
 * repeated among `drafts`, numbered from `firstSeq`; `duplicates` counts the rest.
 */
export function newRecords(drafts: readonly SegmentDraft[], archived: (id: string) => boolean, firstSeq: number, at: number, origin: RecordOrigin): { records: ArchiveRecord[]; duplicates: number } {
  const records: ArchiveRecord[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  for (const d of drafts) {
    const id = segmentId(d);
    if (archived(id) || seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    records.push({ v: 1, id, seq: firstSeq + records.length, ...d, at, session: origin.session, compaction: origin.compaction });
  }
  return { records, duplicates };
}

const ROLES: ReadonlySet<SegmentRole> = new Set(["user", "host", "assistant", "tool_call", "tool_result", "bash"]);

export function archiveRoot(stateDir: string): string {
  return path.join(stateDir, "context", "archive");
}

export function archiveDir(stateDir: string, sessionKey: string): string {
  return path.join(archiveRoot(stateDir), sessionDirName(sessionKey));
}

export function segmentId(d: Pick<SegmentDraft, "role" | "tool" | "target" | "text">): string {
  return createHash("sha256")
    .update(`${d.role}\0${d.tool ?? ""}\0${d.target ?? ""}\0${d.text}`, "utf8")
    .digest("hex")
    .slice(0, 16);
}

/** A parsed line, or null when it is not a valid record (torn write, hand edit, other version). */
export function parseRecord(line: string): ArchiveRecord | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object") return null;
  const r = v as Record<string, unknown>;
  if (r.v !== 1 || typeof r.id !== "string" || !/^[0-9a-f]{16}$/.test(r.id)) return null;
  if (typeof r.text !== "string" || !ROLES.has(r.role as SegmentRole)) return null;
  for (const k of ["seq", "t", "at", "compaction"]) if (typeof r[k] !== "number" || !Number.isFinite(r[k])) return null;
  if (typeof r.session !== "string") return null;
  for (const k of ["tool", "target"]) if (r[k] !== undefined && typeof r[k] !== "string") return null;
  for (const k of ["part", "parts"]) if (r[k] !== undefined && (typeof r[k] !== "number" || !Number.isInteger(r[k]))) return null;
  return r as unknown as ArchiveRecord;
}

export interface ReadResult {
  records: ArchiveRecord[];
  /** lines that did not parse (torn or corrupt), skipped */
  badLines: number;
  /** bytes consumed: up to and including the last newline */
  offset: number;
  /** inode of the file read (a rewrite replaces it) */
  ino: number;
}

/** Parses the complete lines of `buf`; the bytes after the last newline are left unconsumed. */
export function parseLines(buf: Buffer): { records: ArchiveRecord[]; badLines: number; consumed: number } {
  const end = buf.lastIndexOf(0x0a);
  const records: ArchiveRecord[] = [];
  let badLines = 0;
  if (end < 0) return { records, badLines, consumed: 0 };
  for (const line of buf.toString("utf8", 0, end).split("\n")) {
    if (!line) continue;
    const r = parseRecord(line);
    if (r) records.push(r);
    else badLines++;
  }
  return { records, badLines, consumed: end + 1 };
}

/** Reads the archive from byte `from` (0: whole file). A missing file reads as empty. */
export async function readArchiveFile(file: string, from = 0): Promise<ReadResult> {
  let fh: fsp.FileHandle;
  try {
    fh = await openRegularFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { records: [], badLines: 0, offset: 0, ino: 0 };
    throw e;
  }
  try {
    const st = await fh.stat();
    const size = st.size - from;
    if (size <= 0) return { records: [], badLines: 0, offset: from, ino: st.ino };
    const buf = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await fh.read(buf, read, size - read, from + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const parsed = parseLines(read < size ? buf.subarray(0, read) : buf);
    return { records: parsed.records, badLines: parsed.badLines, offset: from + parsed.consumed, ino: st.ino };
  } finally {
    await fh.close();
  }
}

/** Read size of scanArchiveIds. */
const SCAN_CHUNK = 1 << 20;
/** How every record line starts (serialize writes `v` then `id` first); the id follows. */
const ID_PREFIX = Buffer.from('{"v":1,"id":"', "latin1");
const SEQ_KEY = Buffer.from('","seq":', "latin1");

export interface IdScan {
  ids: Set<string>;
  /** highest seq in the file */
  lastSeq: number;
  /** bytes scanned: the end of the last complete line (a later scan continues from here) */
  offset: number;
  /** inode of the file scanned (a rewrite replaces it: a continued scan must start over) */
  ino: number;
}

/**
 * The record ids of the archive without parsing the records: the id sits at a fixed place
 * at the start of each line, so this is a newline scan, a few ms at 20k records where a full
 * parse costs ~0.4 s. For dedup on the awaited path of a process that has not loaded the
 * archive yet. A line of another shape is parsed; a torn line without a newline is skipped.
 */
export async function scanArchiveIds(file: string, from?: IdScan): Promise<IdScan> {
  let fh: fsp.FileHandle;
  try {
    fh = await openRegularFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { ids: new Set(), lastSeq: 0, offset: 0, ino: 0 };
    throw e;
  }
  let ids = new Set<string>();
  let lastSeq = 0;
  let scanned = 0;
  let ino = 0;
  try {
    const st = await fh.stat();
    ino = st.ino;
    // continue an earlier scan of the same file when it only grew (appends); else start over
    if (from && from.ino === st.ino && from.offset <= st.size) {
      ids = from.ids;
      lastSeq = from.lastSeq;
      scanned = from.offset;
    }
    // read through one reused buffer: allocating a 20 MB buffer for the whole file costs more
    // than the scan (page faults), ~100 ms on this machine
    let buf = Buffer.allocUnsafe(SCAN_CHUNK);
    let len = 0;
    for (let pos = scanned; ; ) {
      if (len === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2); // a line longer than the buffer
        buf.copy(bigger, 0, 0, len);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, len, buf.length - len, pos);
      pos += bytesRead;
      len += bytesRead;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, start); nl >= 0 && nl < len; nl = buf.indexOf(0x0a, start)) {
        if (nl > start) {
          const fixed = nl - start > 31 && buf.compare(ID_PREFIX, 0, ID_PREFIX.length, start, start + ID_PREFIX.length) === 0 && buf[start + 29] === 0x22 && buf[nl - 1] === 0x7d;
          const seq = fixed ? seqAt(buf, start + 29, nl) : -1;
          if (fixed && seq >= 0) {
            ids.add(buf.toString("latin1", start + 13, start + 29));
            if (seq > lastSeq) lastSeq = seq;
          } else {
            const r = parseRecord(buf.toString("utf8", start, nl));
            if (r) {
              ids.add(r.id);
              if (r.seq > lastSeq) lastSeq = r.seq;
            }
          }
        }
        start = nl + 1;
      }
      scanned += start;
      buf.copy(buf, 0, start, len);
      len -= start;
      if (bytesRead === 0) break;
    }
  } finally {
    await fh.close();
  }
  return { ids, lastSeq, offset: scanned, ino };
}

/** What the newest part of an archive file says (tailScan): for an append that loads nothing. */
export interface TailScan {
  /** ids of the records in the scanned tail */
  ids: Set<string>;
  /** highest seq seen (the tail holds the newest records) */
  lastSeq: number;
  /** seq of the file's first record (with lastSeq: about how many records the file holds) */
  firstSeq: number;
  /** file size scanned to (end of its last complete line) */
  offset: number;
  ino: number;
}

/** id and seq of one record line buf[start, nl), by the fixed layout or by parsing; null for another line. */
function idSeqOf(buf: Buffer, start: number, nl: number): { id: string; seq: number } | null {
  if (nl - start > 31 && buf.compare(ID_PREFIX, 0, ID_PREFIX.length, start, start + ID_PREFIX.length) === 0 && buf[start + 29] === 0x22 && buf[nl - 1] === 0x7d) {
    const seq = seqAt(buf, start + 29, nl);
    if (seq >= 0) return { id: buf.toString("latin1", start + 13, start + 29), seq };
  }
  const r = parseRecord(buf.toString("utf8", start, nl));
  return r ? { id: r.id, seq: r.seq } : null;
}

/**
 * The ids of the last `bytes` of the file (and its first record's seq), or, with `from`, of what
 * was appended since that scan: an append dedups against the newest records without reading the
 * archive (issue 24: O(turn), whatever the archive's size). A rewritten file (other inode, or
 * shorter) is scanned afresh.
 */
export async function scanArchiveTail(file: string, bytes: number, from?: TailScan): Promise<TailScan> {
  let fh: fsp.FileHandle;
  try {
    fh = await openRegularFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { ids: new Set(), lastSeq: 0, firstSeq: 0, offset: 0, ino: 0 };
    throw e;
  }
  try {
    const st = await fh.stat();
    const grown = from && from.ino === st.ino && from.offset <= st.size;
    const out: TailScan = grown ? from : { ids: new Set(), lastSeq: 0, firstSeq: 0, offset: 0, ino: st.ino };
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
    let read = 0;
    while (read < len) {
      const { bytesRead } = await fh.read(buf, read, len - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    // from the middle of the file: the first (partial) line is not a record
    let at = start === 0 || grown ? 0 : buf.indexOf(0x0a) + 1;
    let end = at;
    for (let nl = buf.indexOf(0x0a, at); nl >= 0 && nl < read; nl = buf.indexOf(0x0a, at)) {
      if (nl > at) {
        const r = idSeqOf(buf, at, nl);
        if (r) {
          out.ids.add(r.id);
          if (r.seq > out.lastSeq) out.lastSeq = r.seq;
        }
      }
      at = nl + 1;
      end = at;
    }
    out.offset = start + end;
    return out;
  } finally {
    await fh.close();
  }
}

/** The seq of a record line from its id's closing quote at `at` (`","seq":<digits>,`); -1 if not there. */
function seqAt(buf: Buffer, at: number, end: number): number {
  if (buf.compare(SEQ_KEY, 0, SEQ_KEY.length, at, at + SEQ_KEY.length) !== 0) return -1;
  let n = 0;
  let i = at + SEQ_KEY.length;
  for (; i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39; i++) n = n * 10 + (buf[i]! - 0x30);
  return i > at + SEQ_KEY.length && buf[i] === 0x2c ? n : -1;
}

export async function statArchive(file: string): Promise<{ size: number; ino: number } | null> {
  try {
    const st = await fsp.stat(file);
    return { size: st.size, ino: st.ino };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

export function serialize(records: readonly ArchiveRecord[]): string {
  let out = "";
  for (const r of records) out += `${JSON.stringify(r)}\n`;
  return out;
}

/**
 * The bytes of `serialize(records)`, encoded a line at a time: one non-Latin-1 character made
 * the whole joined string two-byte, and encoding that (a rope of thousands of lines) cost 2-3x
 * the lines' own encodings (a 1.9 MB append: ~100 vs ~45 ms; it was the main thread's largest
 * single call per turn in bench/gateway.ts).
 */
export function encodeRecords(records: readonly ArchiveRecord[]): Buffer {
  const lines = records.map((r) => Buffer.from(`${JSON.stringify(r)}\n`, "utf8"));
  return lines.length === 1 ? lines[0]! : Buffer.concat(lines);
}

/**
 * Appends whole lines in one write (fsync'd). When the file does not end with a newline
 * (a torn earlier write), a newline goes first so the torn line stays one bad line.
 * Returns the file size after the write.
 */
export async function appendLines(file: string, data: string | Buffer): Promise<number> {
  const fh = await openMakingDir(file, "a+");
  try {
    const st = await fh.stat();
    // a FIFO opens read-write without blocking, but a write larger than its buffer would park
    // this thread forever; /dev/zero takes anything: neither is our file
    if (!st.isFile()) throw new NotAFileError(file);
    let prefix = "";
    if (st.size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, st.size - 1);
      if (last[0] !== 0x0a) prefix = "\n";
    }
    const body = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    const bytes = prefix ? Buffer.concat([Buffer.from(prefix, "utf8"), body]) : body;
    await fh.write(bytes, 0, bytes.length);
    await fh.datasync();
    return st.size + bytes.length;
  } finally {
    await fh.close();
  }
}

/**
 * Opens `file`, making its directory (mode 0700) only when the open finds it missing: the
 * directory exists on every append but the first, and a mkdir before each was one more
 * file-system call on the gateway's event loop per turn (issue 24).
 */
async function openMakingDir(file: string, flags: string): Promise<fsp.FileHandle> {
  try {
    return await fsp.open(file, flags, FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    await makeDirs(path.dirname(file), DIR_MODE);
    return fsp.open(file, flags, FILE_MODE);
  }
}

export async function rewriteArchiveFile(file: string, records: readonly ArchiveRecord[]): Promise<void> {
  await makeDirs(path.dirname(file), DIR_MODE);
  await writeFileAtomic(file, serialize(records), { mode: FILE_MODE });
}

const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 5_000;

/**
 * Runs `fn` holding `<dir>/segments.lock` (O_EXCL create). A lock older than
 * LOCK_STALE_MS is a crashed holder's and is taken over; after LOCK_WAIT_MS of waiting the
 * call fails (the caller logs and skips this archive write; nothing on disk is harmed).
 */
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
      try {
        const st = await fsp.stat(lock);
        if (Date.now() - st.mtimeMs > LOCK_STALE_MS) {
          await fsp.unlink(lock).catch(() => undefined);
          continue;
        }
      } catch {
        continue; // released meanwhile
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
