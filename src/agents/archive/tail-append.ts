/**
 * Appending without loading the archive: O(segments appended), whatever its size. Dedup by content
 * id against the file's tail (at least twice the bytes appended), read once per process and then
 * followed; an older id is archived again, costing a line on disk, never a duplicate hit (a reader
 * keeps one record per id). Eviction is the worker's, asked for when the seq range says the file
 * is over maxSegments.
 */
import path from "node:path";
import { BudgetCache } from "../../infra/budget-cache.js";
import type { SegmentDraft } from "./segments.js";
import { ARCHIVE_FILE, appendLines, archiveDir, encodeRecords, newRecords, type RecordOrigin, withArchiveLock } from "./store.js";
import { scanArchiveTail, type TailScan } from "./store-scan.js";

export interface ArchiveLimits {
  /** most segments kept; beyond it the oldest go (down to 90% so eviction is not per append) */
  maxSegments: number;
  /** segments archived longer ago than this are dropped */
  retentionDays: number;
}

export interface AppendResult {
  added: number;
  duplicates: number;
  evicted: number;
}

/** Smallest tail scanned for dedup. */
const MIN_TAIL_BYTES = 512 * 1024;
/** Bytes an id costs in memory (string + Set slot). */
const BYTES_PER_ID = 96;
/** Ids followed past this many: the next append scans the tail afresh (bounds memory). */
const MAX_IDS = 32_768;

interface TailState {
  scan: TailScan;
  /** where the scanned tail begins: the newest `scan.offset - start` bytes are covered */
  start: number;
}

const tails = new BudgetCache<string, TailState>("archive tail", 16 * 2 ** 20, (t) => t.scan.ids.size * BYTES_PER_ID);

export function tailStats() {
  return tails.stats();
}

export function setTailBudget(bytes: number): void {
  if (Number.isFinite(bytes) && bytes > 0) tails.setBudget(bytes);
}

export interface TailAppendResult extends AppendResult {
  /** the file's records (by seq range) exceed maxSegments: eviction is due */
  overLimit: boolean;
}

/** Appends the drafts not among the archive's newest records. Holds the archive's lock; never loads the file. */
export function appendToTail(
  stateDir: string,
  sessionKey: string,
  drafts: readonly SegmentDraft[],
  origin: RecordOrigin,
  limits: ArchiveLimits,
  now: number = Date.now(),
): Promise<TailAppendResult> {
  const dir = archiveDir(stateDir, sessionKey);
  return withArchiveLock(dir, () => appendToTailLocked(path.join(dir, ARCHIVE_FILE), drafts, origin, limits, now));
}

/** Scans the newest MIN_TAIL_BYTES of `file` ahead of its first append (session start), so that append reads only what came since. */
export async function prefetchTail(file: string): Promise<void> {
  if (tails.get(file)) return;
  const scan = await scanArchiveTail(file, MIN_TAIL_BYTES);
  tails.set(file, { scan, start: Math.max(0, scan.offset - MIN_TAIL_BYTES) });
}

/** appendToTail with the archive's lock already held (SessionArchive's append before it has loaded the file). */
export async function appendToTailLocked(
  file: string,
  drafts: readonly SegmentDraft[],
  origin: RecordOrigin,
  limits: ArchiveLimits,
  now: number,
): Promise<TailAppendResult> {
  let bytes = 0;
  for (const d of drafts) bytes += d.text.length + 160;
  const need = Math.max(MIN_TAIL_BYTES, 2 * bytes);
  const known = tails.get(file);
  let state: TailState;
  if (known && known.scan.ids.size < MAX_IDS && (known.start === 0 || known.scan.offset - known.start >= need)) {
    const scan = await scanArchiveTail(file, need, known.scan);
    state = scan === known.scan ? known : { scan, start: Math.max(0, scan.offset - need) };
  } else {
    const scan = await scanArchiveTail(file, need);
    state = { scan, start: Math.max(0, scan.offset - need) };
  }
  const { scan } = state;
  const { records, duplicates } = newRecords(drafts, (id) => scan.ids.has(id), scan.lastSeq + 1, now, origin);
  for (const r of records) scan.ids.add(r.id);
  scan.lastSeq += records.length;
  if (records.length > 0) {
    if (scan.firstSeq === 0) scan.firstSeq = records[0]!.seq;
    // we hold the lock: the file is what we scanned plus these lines
    scan.offset = await appendLines(file, encodeRecords(records));
    if (scan.ino === 0) state = { scan: await scanArchiveTail(file, need), start: 0 };
  }
  tails.set(file, state);
  const count = state.scan.lastSeq - state.scan.firstSeq + 1;
  return { added: records.length, duplicates, evicted: 0, overLimit: state.scan.firstSeq > 0 && count > limits.maxSegments };
}
