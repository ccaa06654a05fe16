/**
 * What `prune --keep N` deletes in one session directory. Only VALID checkpoints count toward
 * N: a truncated or corrupt file never takes the place of a good one, so a key is never left
 * without its newest valid checkpoint. Invalid files older than the oldest kept checkpoint go
 * too (they are garbage); a newer invalid file stays for `verify` to report. The pointer's file
 * is never deleted.
 */
import { type CheckpointFileEntry, listCheckpointFilesInDir, readCheckpointFile } from "../agents/checkpoint/files.js";
import { readPointerInDir } from "../agents/checkpoint/files.js";
import { errorCode, type FsOps } from "../infra/fs-ops.js";

export interface PrunePlan {
  /** checkpoint ids kept (valid, newest first) */
  kept: string[];
  /** ids to delete, numeric order; `invalid` marks the corrupt ones */
  doomed: Array<CheckpointFileEntry & { invalid: boolean }>;
}

export async function planPrune(dir: string, keep: number, sessionKey: string | null, fs: FsOps): Promise<PrunePlan> {
  const files = await listCheckpointFilesInDir(dir, fs);
  const pointerId = (await readPointerInDir(dir, null, fs))?.checkpoint_id ?? null;
  const valid = new Set<string>();
  for (const f of files) {
    try {
      await readCheckpointFile(f.path, sessionKey ?? undefined, fs);
      valid.add(f.id);
    } catch {
      // counted as invalid
    }
  }
  const keptFiles = files.filter((f) => valid.has(f.id)).slice(-Math.max(1, keep));
  const oldestKept = keptFiles[0]?.n ?? Number.POSITIVE_INFINITY;
  const doomed = files
    .filter((f) => f.id !== pointerId && !keptFiles.includes(f) && (valid.has(f.id) || f.n < oldestKept))
    // with no valid checkpoint at all nothing is deleted: every file may be what is left to recover
    .filter(() => keptFiles.length > 0)
    .map((f) => ({ ...f, invalid: !valid.has(f.id) }));
  return { kept: keptFiles.map((f) => f.id).reverse(), doomed };
}

/** Deletes the plan's files; returns the ids deleted (a file already gone counts as deleted by another). */
export async function applyPrune(plan: PrunePlan, fs: FsOps): Promise<string[]> {
  const deleted: string[] = [];
  for (const f of plan.doomed) {
    try {
      await fs.unlink(f.path);
      deleted.push(f.id);
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
    }
  }
  return deleted;
}
