/**
 * One session key's archive, on disk (store.ts) and indexed in memory, following other processes'
 * appends by reading the file's new tail; the saved index is a cache of segments.jsonl.
 */
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import { debugLog } from "../../infra/debug-log.js";
import { Bm25, type Bm25Hit, type Bm25Options, type Bm25Saved } from "./bm25.js";
import { identifierTerms, MAX_QUERY_READ, pickSpecificTerms, queryTerms } from "./tokenize.js";
import type { SegmentDraft } from "./segments.js";
import { ARCHIVE_FILE, INDEX_FILE, type ArchiveRecord, appendLines, newRecords, type AppendResult } from "./store.js";
import { archiveDir, parseLines, readNewLines, rewriteArchiveFile, encodeRecords, DAY_MS, orNull } from "./store.js";
import { type RecordOrigin, statArchive, withArchiveLock, type ArchiveLimits, appendToTailLocked } from "./store.js";
import { readRegularFile, readRegularFileSync } from "../../infra/regular-file.js";

export type SearchHit = Omit<Bm25Hit, "id"> & { record: ArchiveRecord };

/**
 * `skipTerm`: the automatic recall drops what the agent can already see; `session`: only this session's segments;
 * `minUnits`: the least score in scoreUnit()s (instead of `minScore`).
 */
export type SearchOptions = Omit<Bm25Options, "keep"> & { limit?: number; session?: string; minUnits?: number };

const SAVE_MIN_ADDED = 256;
const SAVE_SHARE = 0.1;
/** Format version of a serialized index (SearchIndex.serialize); another version is rebuilt. */
const SERIAL_VERSION = 4; // 4: these postings (3 and before: MiniSearch's JSON)

/** Full-text index of one archive's records: one rare term matched once scores about its idf, so a threshold in
 * idf units means "at least this specific a match". */
export class SearchIndex {
  constructor(private readonly bm25 = new Bm25(), private readonly records = new Map<string, ArchiveRecord>()) {}
  /** records added / removed since it was serialized or loaded (when to save it again) */
  addedSinceSave = 0;
  removedSinceSave = 0;

  /** The index as one JSON line: loading it costs a parse instead of tokenizing every record again. */
  serialize(): string {
    return JSON.stringify({ v: SERIAL_VERSION, ...this.bm25.save() });
  }

  /** An index from `serialize` over `records`; null when torn, of another version or naming a gone record. */
  static deserialize(text: string, records: ReadonlyMap<string, ArchiveRecord>): SearchIndex | null {
    const saved = orNull(() => JSON.parse(text) as Bm25Saved & { v: number });
    if (saved?.v !== SERIAL_VERSION || !Array.isArray(saved.ids) || !Array.isArray(saved.postings)) return null;
    const bm25 = orNull(() => Bm25.load(saved, records));
    return bm25 && new SearchIndex(bm25, new Map(saved.ids.map((id) => [id, records.get(id)!])));
  }

  get size(): number {
    return this.records.size;
  }

  /** Saved again after SAVE_MIN_ADDED additions (or SAVE_SHARE) or any removal (a saved gone record is useless). */
  get worthSaving(): boolean {
    return this.removedSinceSave > 0 || this.addedSinceSave >= Math.max(SAVE_MIN_ADDED, SAVE_SHARE * this.size);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  /** Recall thresholds' unit: BM25's idf at df = 1 (raw BM25 grows with the archive; this unit does not). */
  scoreUnit(): number {
    return Math.log(1 + (Math.max(1, this.records.size) - 1 + 0.5) / 1.5);
  }

  /** All records, oldest first. */
  values(): IterableIterator<ArchiveRecord> {
    return this.records.values();
  }

  add(records: readonly ArchiveRecord[]): void {
    for (const r of records) {
      if (this.records.has(r.id)) continue;
      this.addedSinceSave++;
      this.records.set(r.id, r);
      this.bm25.add(r);
    }
  }

  remove(ids: Iterable<string>): void {
    const gone = [...ids].filter((id) => this.records.delete(id));
    this.removedSinceSave += gone.length;
    this.bm25.remove(gone);
  }

  specificTerms(query: string): string[] {
    return pickSpecificTerms(queryTerms(query, MAX_QUERY_READ), identifierTerms(query), this.bm25.df, this.records.size);
  }

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(1, Math.min(opts.limit ?? 5, 100));
    const keep = opts.session ? (id: string) => this.records.get(id)?.session === opts.session : undefined;
    const minScore = opts.minUnits === undefined ? opts.minScore : opts.minUnits * this.scoreUnit();
    const hits = this.bm25.search(query, limit, { ...opts, keep, minScore });
    return hits.map((h) => ({ record: this.records.get(h.id)!, score: h.score, bm25: h.bm25, terms: h.terms }));
  }
}

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({ maxSegments: 20_000, retentionDays: 30 });

/** Records indexed per event-loop turn by the background indexer (~10-20 ms of work). */
const INDEX_BATCH = 64;

export class SessionArchive {
  readonly dir: string;
  readonly file: string;
  readonly indexFile: string;
  /** every live record of the file as read, in archive order (dedup, stats, eviction) */
  private records = new Map<string, ArchiveRecord>();
  /** built on demand; holds every record except those in `unindexed` */
  private index: SearchIndex | null = null;
  private unindexed: ArchiveRecord[] = [];
  private indexing: Promise<void> | null = null;
  /** the file as read: bytes consumed (whole lines), its inode, its lines that did not parse */
  private offset = 0;
  private ino = 0;
  private badLines = 0;
  private nextSeq = 1;
  private loaded = false;
  /** the file holds expired records (not indexed): the next append rewrites it */
  private expiredOnDisk = false;
  private loading: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly stateDir: string,
    readonly sessionKey: string,
    public limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
    private readonly now: () => number = Date.now,
    /** the archive's directory (default: from state dir and key; the CLI opens one by directory) */
    dir?: string,
  ) {
    this.dir = dir ?? archiveDir(stateDir, sessionKey);
    this.file = path.join(this.dir, ARCHIVE_FILE);
    this.indexFile = path.join(this.dir, INDEX_FILE);
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  get size(): number {
    return this.records.size;
  }

  /** Bytes of the segments file read so far (what the memory budget weighs a loaded archive by). */
  get bytesOnDisk(): number {
    return this.offset;
  }

  /** Loaded and fully indexed: a search costs only the search. */
  get isReady(): boolean {
    return this.loaded && this.index !== null && this.unindexed.length === 0;
  }

  private expired = (r: ArchiveRecord): boolean => r.at < this.now() - this.limits.retentionDays * DAY_MS;

  /** Takes the saved index when it fits the records, else starts an empty one; the rest is `unindexed`. */
  private adoptIndex(saved: string | null): void {
    const loaded = saved ? SearchIndex.deserialize(saved, this.records) : null;
    if (saved && !loaded) debugLog("archive index", `unusable ${this.indexFile}, rebuilding it from ${ARCHIVE_FILE}`);
    const index = (this.index = loaded ?? new SearchIndex());
    this.unindexed = [...this.records.values()].filter((r) => !index.has(r.id));
  }

  /** Indexes what is not indexed yet, now (a search needs it); no saved index (or an unreadable one): rebuilt. */
  private indexNow(): SearchIndex {
    if (!this.index) this.adoptIndex(this.loaded ? orNull(() => readRegularFileSync(this.indexFile)) : null);
    const index = this.index!;
    if (this.unindexed.length > 0) index.add(this.unindexed.splice(0));
    if (index.worthSaving && !this.indexing) void this.indexInBackground(); // saves it
    return index;
  }

  /** Loads or builds the index INDEX_BATCH records per event-loop turn, then saves it; never rejects. */
  indexInBackground(): Promise<void> {
    this.indexing ??= (async () => {
      try {
        if (!this.loaded) await this.load();
        if (!this.index) {
          const saved = await readRegularFile(this.indexFile, "utf8").catch(() => null);
          if (!this.index) this.adoptIndex(saved);
        }
        while (this.unindexed.length > 0) {
          await new Promise((resolve) => setImmediate(resolve));
          if (!this.index) break; // reset meanwhile (the file was rewritten by another process)
          this.index.add(this.unindexed.splice(0, INDEX_BATCH));
        }
        await this.saveIndex();
      } catch (e) {
        debugLog("archive index", e);
      } finally {
        this.indexing = null;
      }
    })();
    return this.indexing;
  }

  /** Writes the complete index next to the file when enough changed (a cache: a failure only costs a rebuild). */
  private async saveIndex(): Promise<void> {
    const index = this.index;
    if (!index || this.unindexed.length > 0 || !index.worthSaving) return;
    const { addedSinceSave, removedSinceSave } = index;
    try {
      await writeFileAtomic(this.indexFile, index.serialize(), { mode: 0o600 });
      // what was added while it was written counts toward the next save
      index.addedSinceSave -= addedSinceSave;
      index.removedSinceSave -= removedSinceSave;
    } catch (e) {
      debugLog("archive index save", e);
    }
  }

  /** Takes the file's new records; all of them, afresh, when `all` or it was rewritten, shrank or is gone. */
  private async read(all: boolean): Promise<void> {
    const read = await readNewLines(this.file, all ? 0 : this.offset, this.ino);
    if (all || !read || read.fresh) {
      this.records = new Map();
      this.index = null;
      this.unindexed = [];
      this.nextSeq = 1;
      this.badLines = 0;
      this.expiredOnDisk = false;
    }
    const { records, badLines } = parseLines(read?.lines ?? []);
    for (const r of records) {
      if (r.seq >= this.nextSeq) this.nextSeq = r.seq + 1;
      if (this.records.has(r.id)) continue;
      if (this.expired(r)) this.expiredOnDisk = true;
      else {
        this.records.set(r.id, r);
        if (this.index) this.unindexed.push(r);
      }
    }
    this.offset = read?.offset ?? 0;
    this.ino = read?.ino ?? 0;
    this.badLines += badLines;
    this.loaded = true;
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    this.loading ??= this.read(true).finally(() => {
      this.loading = null;
    });
    await this.loading;
  }

  /** Brings the index up to date with the file: the new tail only, or all after a rewrite or removal. */
  async refresh(): Promise<void> {
    if (!this.loaded) return this.load();
    // a stat only when nothing changed (every search runs this)
    const st = await statArchive(this.file);
    const same = st ? st.ino === this.ino && st.size === this.offset : this.offset === 0 && this.records.size === 0;
    if (!same) await this.read(false);
  }

  /** Runs `fn` after this process's earlier writes (the lock serializes processes), then indexes in the background. */
  private serial<T>(fn: () => Promise<T>, changed: (res: T) => boolean): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run.then((res) => {
      if (changed(res) || !this.isReady) void this.indexInBackground();
      return res;
    });
  }

  /** Appends the segments not archived yet (dedup by content hash), then evicts and expires. */
  append(drafts: readonly SegmentDraft[], origin: RecordOrigin): Promise<AppendResult> {
    const locked = async (): Promise<AppendResult> => {
      const now = this.now();
      if (!this.loaded && !this.loading) {
        // not loaded (the first compaction after a restart): dedup against the file's newest
        // records without parsing it (store.ts); over maxSegments, load and evict now
        const cold = await appendToTailLocked(this.file, drafts, origin, this.limits, now);
        const evicted = cold.overLimit ? await this.refresh().then(() => this.compactFile()) : 0;
        return { added: cold.added, duplicates: cold.duplicates, evicted };
      }
      await this.refresh();
      const { records, duplicates } = newRecords(drafts, (id) => this.records.has(id), this.nextSeq, now, origin);
      this.nextSeq += records.length;
      if (records.length > 0) {
        const before = await statArchive(this.file);
        const size = await appendLines(this.file, encodeRecords(records));
        // the file was exactly what we had read (we hold the lock): our view stays in step
        if (!before || before.size === this.offset) {
          this.offset = size;
          if (!before) this.ino = (await statArchive(this.file))?.ino ?? 0;
        }
        for (const r of records) this.records.set(r.id, r);
        if (this.index) this.unindexed.push(...records);
      }
      return { added: records.length, duplicates, evicted: await this.compactFile() };
    };
    return this.serial(() => withArchiveLock(this.dir, locked), (res) => res.added > 0);
  }

  /** Loads the archive and, under the lock, evicts and expires what is over its limits; returns how many went. */
  enforceLimits(): Promise<number> {
    const locked = () => this.refresh().then(() => this.compactFile());
    return this.serial(() => this.load().then(() => withArchiveLock(this.dir, locked)), (evicted) => evicted > 0);
  }

  /** Rewrites the file without torn lines, expired records and what exceeds maxSegments; returns how many went. */
  private async compactFile(): Promise<number> {
    const all = [...this.records.values()];
    let expired = 0;
    while (expired < all.length && this.expired(all[expired]!)) expired++;
    const over = all.length - expired > this.limits.maxSegments;
    if (!this.expiredOnDisk && this.badLines === 0 && expired === 0 && !over) return 0;
    const drop = over ? all.length - Math.floor(this.limits.maxSegments * 0.9) : expired;
    const dropped = all.slice(0, drop).map((r) => r.id);
    await rewriteArchiveFile(this.file, all.slice(drop));
    for (const id of dropped) this.records.delete(id);
    this.index?.remove(dropped);
    this.unindexed = this.unindexed.filter((r) => this.records.has(r.id));
    const st = await statArchive(this.file);
    this.offset = st?.size ?? 0;
    this.ino = st?.ino ?? 0;
    this.badLines = 0;
    this.expiredOnDisk = false;
    return drop;
  }

  /** Searches, indexing first whatever the background indexer has not reached yet. */
  search(query: string, opts?: SearchOptions): SearchHit[] {
    return this.indexNow().search(query, opts);
  }

  /** What its live records hold (`openclaw-context archive`, bench); `bytes`, `badLines`: the file's as last read. */
  stats() {
    const byRole = { user: 0, host: 0, assistant: 0, tool_call: 0, tool_result: 0, bash: 0 };
    const sessions = new Set<string>();
    const compactions = new Set<string>();
    let oldest: number | null = null;
    let newest: number | null = null;
    for (const r of this.records.values()) {
      byRole[r.role]++;
      sessions.add(r.session);
      compactions.add(`${r.session}\0${r.compaction}`);
      oldest = Math.min(oldest ?? Infinity, r.t || r.at);
      newest = Math.max(newest ?? -Infinity, r.t || r.at);
    }
    const file = { segments: this.records.size, bytes: this.offset, badLines: this.badLines };
    return { ...file, sessions: sessions.size, compactions: compactions.size, oldest, newest, byRole };
  }

  indexBytes(): number {
    return Buffer.byteLength(this.indexNow().serialize());
  }
}
