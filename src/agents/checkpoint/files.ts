/**
 * The checkpoint directory of a session: the store's options, reading one checkpoint file, listing
 * them, retention (spec §5.5: the newest N by numeric id stay, and the one the pointer names; a crashed
 * writer's temp files go once older than a minute), the pointer `_latest.json` and the recovering read.
 */
import path from "node:path";
import { parseDocument } from "yaml";
import { TEMP_FILE_RE, writeFileAtomic } from "../../infra/atomic-file.js";
import { FileTooLargeError, NotAFileError, readTextCapped } from "../../infra/regular-file.js";
import { errorCode, nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import { checkpointSessionDir, sessionDirName } from "../../infra/session-dir.js";
import { wellFormed } from "../text/visible.js";
import { CheckpointError } from "./errors.js";
import { checkpointFileName, parseCheckpointFileName, parseCheckpointId } from "./ids.js";
import { isOutOfRangeCheckpointFileName } from "./ids.js";
import { type Checkpoint, CHECKPOINT_SUMMARY, type CheckpointSummary, SUMMARY_COUNTS } from "./schema.js";
import { readShape } from "./validate.js";
import { assertParseableSize, MAX_CHECKPOINT_BYTES, parseCheckpoint } from "./yaml.js";

export interface CheckpointStoreOptions {
  /** root of OpenClaw state (`~/.openclaw` or OPENCLAW_STATE_DIR) */
  stateDir: string;
  /** checkpoints kept per session key (default 5, spec §5.5) */
  retention?: number;
  /** file-system layer (tests inject faults here) */
  fs?: FsOps | undefined;
}

export const DEFAULT_RETENTION = 5;

export function retentionOf(opts: CheckpointStoreOptions): number {
  const n = opts.retention ?? DEFAULT_RETENTION;
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`checkpoint retention must be an integer >= 1, got ${n}`);
  return n;
}

export interface CheckpointFileEntry {
  id: string;
  n: number;
  /** absolute path */
  path: string;
}

function quoteKey(key: string): string {
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

/** A checkpoint's id must match its file's name (cp_004 copied over cp_003 is refused). */
export function assertNamedAs(file: string, id: string): void {
  const named = parseCheckpointFileName(path.basename(file));
  if (named && named.id !== id) throw new CheckpointError(file, "meta.checkpoint_id", `"${id}" does not match the file name`);
}

export function unreadable(file: string, err: unknown): CheckpointError {
  const code = errorCode(err);
  let why = code === "ENOENT" ? "file not found" : `cannot read (${code ?? String(err)})`;
  if (err instanceof FileTooLargeError || err instanceof NotAFileError) why = `${err.message}: not read`;
  return new CheckpointError(file, undefined, why, { cause: err });
}

/** One checkpoint file, validated, named as its id, of `expectedSessionKey` when given; else a CheckpointError. */
export async function readCheckpointFile(file: string, expectedSessionKey?: string, fs: FsOps = nodeFsOps): Promise<Checkpoint> {
  const text = await readTextCapped(fs, file, MAX_CHECKPOINT_BYTES).catch((e) => Promise.reject(unreadable(file, e)));
  const cp = parseCheckpoint(text, file);
  assertNamedAs(file, cp.meta.checkpoint_id);
  if (expectedSessionKey !== undefined && cp.meta.session_key !== wellFormed(expectedSessionKey)) {
    throw new CheckpointError(
      file,
      "meta.session_key",
      `checkpoint belongs to session ${quoteKey(cp.meta.session_key)}, expected ${quoteKey(expectedSessionKey)}`,
    );
  }
  return cp;
}

/**
 * One readdir of a session directory, empty when missing: checkpoint files (numeric order), the atomic
 * writers' temp files, and names of checkpoint files with an id out of range (ignored as corrupt).
 */
export async function scanSessionDir(dir: string, fs: FsOps) {
  const names = await readdirOrEmpty(fs, dir);
  const scan = { files: [] as CheckpointFileEntry[], temps: [] as string[], outOfRange: [] as string[] };
  for (const name of names) {
    const parsed = parseCheckpointFileName(name);
    if (parsed) scan.files.push({ ...parsed, path: path.join(dir, name) });
    else if (TEMP_FILE_RE.test(name)) scan.temps.push(name);
    else if (isOutOfRangeCheckpointFileName(name)) scan.outOfRange.push(name);
  }
  scan.files.sort((a, b) => a.n - b.n);
  return scan;
}

/** Checkpoint files (cp_N.yaml) in a directory, numeric order; [] when the directory is missing. */
export async function listCheckpointFilesInDir(dir: string, fs: FsOps): Promise<CheckpointFileEntry[]> {
  return (await scanSessionDir(dir, fs)).files;
}

export async function listCheckpoints(opts: CheckpointStoreOptions, sessionKey: string): Promise<CheckpointFileEntry[]> {
  return listCheckpointFilesInDir(checkpointSessionDir(opts.stateDir, sessionKey), opts.fs ?? nodeFsOps);
}

export const STALE_TEMP_MS = 60_000;

/** Deletes `files`, pushing each id deleted to `deleted` (also when a later one fails); returns it. */
export async function deleteCheckpointFiles(files: readonly CheckpointFileEntry[], fs: FsOps, deleted: string[] = []): Promise<string[]> {
  for (const f of files) {
    try {
      await fs.unlink(f.path);
      deleted.push(f.id);
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err; // ENOENT: a concurrent writer pruned it first
    }
  }
  return deleted;
}

/** Removes the temp files `names` (in `dir`; by default all there) older than STALE_TEMP_MS. */
export async function sweepStaleTempFiles(dir: string, fs: FsOps, names?: readonly string[]): Promise<void> {
  for (const name of names ?? (await fs.readdir(dir).catch((): string[] => [])).filter((n) => TEMP_FILE_RE.test(n))) {
    const file = path.join(dir, name);
    try {
      const st = await fs.stat(file);
      if (st.isFile() && Date.now() - st.mtimeMs > STALE_TEMP_MS) await fs.unlink(file);
    } catch {
      // vanished or not ours to remove: leave it
    }
  }
}

/** Returns the ids of the deleted checkpoints (numeric order). */
export async function pruneCheckpoints(opts: CheckpointStoreOptions, sessionKey: string): Promise<string[]> {
  const dir = checkpointSessionDir(opts.stateDir, sessionKey);
  const fs = opts.fs ?? nodeFsOps;
  const files = await listCheckpointFilesInDir(dir, fs);
  const pointerId = (await readPointerInDir(dir, null, fs))?.checkpoint_id ?? null;
  const deleted = await deleteCheckpointFiles(files.slice(0, Math.max(0, files.length - retentionOf(opts))).filter((f) => f.id !== pointerId), fs);
  await sweepStaleTempFiles(dir, fs);
  return deleted;
}

// --- `_latest.json`: a hint naming a session's newest checkpoint, written after the checkpoint is durable;
// readers validate it (canonical id, path === "<id>.yaml", same key) and fall back.
export const POINTER_FILE = "_latest.json";
/** a pointer holds a few fields and a short summary: anything larger is not one */
export const MAX_POINTER_BYTES = 256 * 1024;

export interface LatestPointer {
  checkpoint_id: string;
  /** absolute path of the checkpoint file */
  path: string;
  /** file name relative to the session dir, as stored */
  file: string;
  session_key: string;
  updated_at: string;
  /** what the writer needs of the latest checkpoint (dedup, back link) without parsing its YAML */
  session_id?: string | null;
  input_tokens?: number;
  /** byte size of the checkpoint file when it was published */
  bytes?: number;
  /** what `status` shows of this checkpoint */
  summary?: CheckpointSummary;
}

/** The pointer of a session dir; null when missing, malformed or another key's (an out-of-range id: in `problems`). */
export async function readPointerInDir(
  dir: string,
  expectedSessionKey: string | null,
  fs: FsOps,
  problems?: string[],
): Promise<LatestPointer | null> {
  const pointerFile = path.join(dir, POINTER_FILE);
  // missing, unreadable or not JSON: recovery scans the directory instead
  const data: unknown = await readTextCapped(fs, pointerFile, MAX_POINTER_BYTES).then(JSON.parse).catch(() => null);
  if (typeof data !== "object" || data === null) return null;
  const { checkpoint_id, path: file, session_key, updated_at, session_id, input_tokens, bytes, summary } = data as Record<string, unknown>;
  if (typeof checkpoint_id !== "string" || parseCheckpointId(checkpoint_id) === null) {
    if (typeof checkpoint_id === "string" && isOutOfRangeCheckpointFileName(`${checkpoint_id}.yaml`)) {
      problems?.push(`ignoring ${POINTER_FILE}: ${checkpoint_id.slice(0, 40)}: checkpoint id out of range (corrupt)`);
    }
    return null;
  }
  if (file !== checkpointFileName(checkpoint_id) || typeof session_key !== "string") return null;
  if (expectedSessionKey !== null && wellFormed(session_key) !== wellFormed(expectedSessionKey)) return null;
  const s = readShape(summary, CHECKPOINT_SUMMARY);
  return {
    checkpoint_id,
    path: path.join(dir, file),
    file,
    session_key,
    updated_at: typeof updated_at === "string" ? updated_at : "",
    ...(typeof input_tokens === "number" && Number.isFinite(input_tokens) && (session_id === null || typeof session_id === "string")
      ? { session_id, input_tokens }
      : {}),
    ...(typeof bytes === "number" && Number.isInteger(bytes) && bytes >= 0 ? { bytes } : {}),
    ...(s?.checkpoint_id === checkpoint_id ? { summary: s } : {}),
  };
}

/** The pointer names the highest file `topId` at the size it recorded: its fields stand for that file. */
export async function pointerIsCurrent(p: LatestPointer, topId: string | undefined, fs: FsOps): Promise<boolean> {
  if (p.bytes === undefined || p.checkpoint_id !== topId) return false;
  // changed or gone: the caller reads the checkpoints
  return fs.stat(p.path).then((st) => st.size === p.bytes, () => false);
}

/** Atomic but not fsync'd: readers look for newer files anyway (a power loss leaves it a step behind). */
export async function writePointerInDir(dir: string, cp: Checkpoint, bytes: number, fs: FsOps): Promise<void> {
  const body = {
    checkpoint_id: cp.meta.checkpoint_id,
    path: checkpointFileName(cp.meta.checkpoint_id),
    session_key: cp.meta.session_key, // the writer checked it is its own key
    updated_at: new Date().toISOString(),
    session_id: cp.meta.session_id,
    input_tokens: cp.meta.token_usage.input_tokens,
    bytes,
    summary: summarizeCheckpoint(cp),
  };
  await writeFileAtomic(path.join(dir, POINTER_FILE), `${JSON.stringify(body, null, 2)}\n`, { fs, durable: false });
}

/** Longest topic kept in the pointer (status shows the start of it). */
const TOPIC_CHARS = 200;

export function summarizeCheckpoint(cp: Checkpoint): CheckpointSummary {
  const { checkpoint_id, trigger, created_at, compaction_count, token_usage } = cp.meta;
  const { decisions, open_items, learnings } = cp;
  const lists = { decisions, ...cp.resources, errors: cp.thread.errors, open_items, learnings };
  const counts = Object.fromEntries(SUMMARY_COUNTS.map((k) => [k, lists[k].length])) as CheckpointSummary["counts"];
  const summary = { checkpoint_id, trigger, created_at, compaction_count, token_usage: { ...token_usage }, counts };
  return { ...summary, topic: cp.working.topic.slice(0, TOPIC_CHARS), status: cp.working.status };
}

// --- The latest valid checkpoint of a directory, never throwing for a corrupt file: a valid file newer
// than the pointer's (its writer died before moving it), the pointer's, its `meta.previous_checkpoint`
// chain (a torn file often keeps its meta), the newest valid file.
const MAX_CHAIN_STEPS = 64;

/** `meta.previous_checkpoint` of a file that failed validation, if what is left of it says so. */
async function previousHint(file: string, fs: FsOps): Promise<string | null> {
  try {
    const text = await readTextCapped(fs, file, MAX_CHECKPOINT_BYTES);
    assertParseableSize(text, file);
    const data = parseDocument(text).toJS({ maxAliasCount: 0 }) as { meta?: { previous_checkpoint?: unknown } } | null;
    const prev = data?.meta?.previous_checkpoint;
    return typeof prev === "string" && parseCheckpointId(prev) !== null ? prev : null;
  } catch {
    return null;
  }
}

export async function readLatestInDir(dir: string, expectedKey: string | null, fs: FsOps): Promise<Checkpoint | null> {
  const newestFirst = (await listCheckpointFilesInDir(dir, fs)).reverse();
  const pointer = await readPointerInDir(dir, expectedKey, fs);
  const pointerN = pointer ? (parseCheckpointId(pointer.checkpoint_id) ?? 0) : Number.POSITIVE_INFINITY;
  const fileOf = (id: string): string => path.join(dir, checkpointFileName(id));
  async function* candidates(): AsyncGenerator<string> {
    for (const f of newestFirst) if (f.n > pointerN) yield f.id;
    let id = pointer?.checkpoint_id ?? null;
    for (let step = 0; id && step <= MAX_CHAIN_STEPS; step++) {
      yield id;
      id = await previousHint(fileOf(id), fs);
    }
    for (const f of newestFirst) yield f.id;
  }
  const tried = new Set<string>();
  for await (const id of candidates()) {
    if (tried.has(id)) continue;
    tried.add(id);
    // one of `expectedKey`, or (key unknown) of a key whose directory this is
    const cp = await readCheckpointFile(fileOf(id), expectedKey ?? undefined, fs).catch(() => null);
    if (cp && (expectedKey !== null || sessionDirName(cp.meta.session_key) === path.basename(dir))) return cp;
  }
  return null;
}

export async function readLatestCheckpoint(opts: CheckpointStoreOptions, sessionKey: string): Promise<Checkpoint | null> {
  return readLatestInDir(checkpointSessionDir(opts.stateDir, sessionKey), sessionKey, opts.fs ?? nodeFsOps);
}
