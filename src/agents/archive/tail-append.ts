/**
 * Appending without loading the archive, O(segments appended): dedup by content id against the file's tail (twice
 * the bytes appended, at least), followed once read; an older id costs a line on disk, never a duplicate hit.
 */
import path from "node:path";
import { BudgetCache } from "../../infra/budget-cache.js";
import type { SegmentDraft } from "./segments.js";
import { ARCHIVE_FILE, appendLines, archiveDir, encodeRecords, newRecords, type RecordOrigin } from "./store.js";
import { openIfExists, parseRecord, withArchiveLock } from "./store.js";
import { readRange } from "../../infra/regular-file.js";

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
