/**
 * Retention (spec §5.5): the newest N checkpoints by numeric id stay, and the one the pointer
 * names; a crashed writer's temp files go once older than a minute (a live writer's are younger).
 */
import path from "node:path";
import { TEMP_FILE_RE } from "../../infra/atomic-file.js";
import { errorCode, type FsOps } from "../../infra/fs-ops.js";
import { type CheckpointFileEntry, listCheckpointFilesInDir } from "./files.js";
import { fsOf, retentionOf, sessionDirOf, type CheckpointStoreOptions } from "./options.js";
import { readPointerInDir } from "./pointer.js";

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

/** Removes the temp files of `names` (in `dir`) older than STALE_TEMP_MS; returns the names removed. */
export async function removeStaleTemps(dir: string, names: readonly string[], fs: FsOps, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of names) {
    if (!TEMP_FILE_RE.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = await fs.stat(file);
      if (st.isFile() && now - st.mtimeMs > STALE_TEMP_MS) {
        await fs.unlink(file);
        removed.push(name);
      }
    } catch {
      // vanished or not ours to remove: leave it
    }
  }
  return removed;
}

export async function sweepStaleTempFiles(dir: string, fs: FsOps, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  return removeStaleTemps(dir, names, fs, now);
}

/** Returns the ids of the deleted checkpoints (numeric order). */
export async function pruneCheckpoints(opts: CheckpointStoreOptions, sessionKey: string): Promise<string[]> {
  const dir = sessionDirOf(opts, sessionKey);
  const fs = fsOf(opts);
  const files = await listCheckpointFilesInDir(dir, fs);
  const pointerId = (await readPointerInDir(dir, null, fs))?.checkpoint_id ?? null;
  const deleted = await deleteCheckpointFiles(files.slice(0, Math.max(0, files.length - retentionOf(opts))).filter((f) => f.id !== pointerId), fs);
  await sweepStaleTempFiles(dir, fs);
  return deleted;
}
