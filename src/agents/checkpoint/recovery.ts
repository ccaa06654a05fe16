/**
 * The latest valid checkpoint of a session directory, never throwing for a corrupt file: a valid
 * file newer than the pointer's (its writer died before moving it), the pointer's, its
 * `meta.previous_checkpoint` chain (a torn file often keeps its meta), the newest valid file.
 */
import path from "node:path";
import { parseDocument } from "yaml";
import type { FsOps } from "../../infra/fs-ops.js";
import type { Checkpoint } from "./schema.js";
import { checkpointSessionDir, sessionDirName } from "../../infra/session-dir.js";
import { type CheckpointStoreOptions, fsOf, listCheckpointFilesInDir, readCheckpointFile } from "./files.js";
import { checkpointFileName, parseCheckpointId } from "./ids.js";
import { readPointerInDir } from "./pointer.js";
import { readTextCapped } from "../../infra/capped-read.js";
import { assertParseableSize, MAX_CHECKPOINT_BYTES } from "./yaml.js";

const MAX_CHAIN_STEPS = 64;

/** A checkpoint of `expectedKey` (or, key unknown, of a key whose directory this is), else null. */
async function readValid(file: string, dir: string, expectedKey: string | null, fs: FsOps): Promise<Checkpoint | null> {
  try {
    const cp = await readCheckpointFile(file, expectedKey ?? undefined, fs);
    if (expectedKey === null && sessionDirName(cp.meta.session_key) !== path.basename(dir)) return null;
    return cp;
  } catch {
    return null;
  }
}

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
  const files = await listCheckpointFilesInDir(dir, fs);
  const newestFirst = [...files].reverse();
  const tried = new Set<string>();
  const attempt = async (id: string): Promise<Checkpoint | null> => {
    if (tried.has(id)) return null;
    tried.add(id);
    return readValid(path.join(dir, checkpointFileName(id)), dir, expectedKey, fs);
  };

  const pointer = await readPointerInDir(dir, expectedKey, fs);
  if (pointer) {
    const pointerN = parseCheckpointId(pointer.checkpoint_id) ?? 0;
    for (const f of newestFirst) {
      if (f.n <= pointerN) break;
      const newer = await attempt(f.id);
      if (newer) return newer;
    }
    const named = await attempt(pointer.checkpoint_id);
    if (named) return named;
    let hint = await previousHint(pointer.path, fs);
    for (let step = 0; hint && step < MAX_CHAIN_STEPS; step++) {
      const prev = await attempt(hint);
      if (prev) return prev;
      hint = await previousHint(path.join(dir, checkpointFileName(hint)), fs);
    }
  }
  for (const f of newestFirst) {
    const cp = await attempt(f.id);
    if (cp) return cp;
  }
  return null;
}

export async function readLatestCheckpoint(opts: CheckpointStoreOptions, sessionKey: string): Promise<Checkpoint | null> {
  return readLatestInDir(checkpointSessionDir(opts.stateDir, sessionKey), sessionKey, fsOf(opts));
}
