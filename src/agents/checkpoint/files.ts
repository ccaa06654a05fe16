/**
 * The store's options; reading one checkpoint file, listing the checkpoint files of a session
 * directory, and retention (spec §5.5): the newest N checkpoints by numeric id stay, and the one the
 * pointer names; a crashed writer's temp files go once older than a minute (a live writer's are younger).
 */
import path from "node:path";
import { errorCode, nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import { checkpointSessionDir } from "../../infra/session-dir.js";
import type { Checkpoint } from "./schema.js";
import { wellFormed } from "../text/visible.js";
import { CheckpointError } from "./errors.js";
import { TEMP_FILE_RE } from "../../infra/atomic-file.js";
import { isOutOfRangeCheckpointFileName, parseCheckpointFileName } from "./ids.js";
import { readPointerInDir } from "./pointer.js";
import { MAX_CHECKPOINT_BYTES, parseCheckpoint } from "./yaml.js";
import { FileTooLargeError, NotAFileError, readTextCapped } from "../../infra/capped-read.js";

export interface CheckpointStoreOptions {
  /** root of OpenClaw state (`~/.openclaw` or OPENCLAW_STATE_DIR) */
  stateDir: string;
  /** checkpoints kept per session key (default 5, spec §5.5) */
  retention?: number;
  /** file-system layer (tests inject faults here) */
  fs?: FsOps | undefined;
}

export const DEFAULT_RETENTION = 5;

export function fsOf(opts: { fs?: FsOps | undefined }): FsOps {
  return opts.fs ?? nodeFsOps;
}

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
  let text: string;
  try {
    text = await readTextCapped(fs, file, MAX_CHECKPOINT_BYTES);
  } catch (err) {
    throw unreadable(file, err);
  }
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

export interface SessionDirScan {
  /** checkpoint files, numeric order */
  files: CheckpointFileEntry[];
  /** temp files of the atomic writers (names) */
  temps: string[];
  /** names shaped like checkpoint files with an id out of range: ignored as corrupt */
  outOfRange: string[];
}

/** One readdir of a session directory, sorted into what the writer needs; empty when missing. */
export async function scanSessionDir(dir: string, fs: FsOps): Promise<SessionDirScan> {
  const names = await readdirOrEmpty(fs, dir);
  const scan: SessionDirScan = { files: [], temps: [], outOfRange: [] };
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
  return listCheckpointFilesInDir(checkpointSessionDir(opts.stateDir, sessionKey), fsOf(opts));
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
  const fs = fsOf(opts);
  const files = await listCheckpointFilesInDir(dir, fs);
  const pointerId = (await readPointerInDir(dir, null, fs))?.checkpoint_id ?? null;
  const deleted = await deleteCheckpointFiles(files.slice(0, Math.max(0, files.length - retentionOf(opts))).filter((f) => f.id !== pointerId), fs);
  await sweepStaleTempFiles(dir, fs);
  return deleted;
}
