/**
 * Scans of an archive file that do not parse it whole (store.ts writes it): the ids and the last
 * seq read straight from each line's fixed prefix, so a large archive is indexed in one pass.
 */
import { promises as fsp } from "node:fs";
import { openRegularFile, readRange } from "../../infra/regular-file.js";
import { parseRecord } from "./store.js";

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
    const read = await readRange(fh, buf, len, start);
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
