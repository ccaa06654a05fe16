/** Session directories under `<stateDir>/context/checkpoints`, for the CLI. */
import path from "node:path";
import { nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import { checkpointsRoot } from "../../infra/session-dir.js";
import { fsOf, sessionDirOf, type CheckpointStoreOptions } from "./options.js";
import { pointerIsCurrent, readPointerInDir, type LatestPointer } from "./pointer.js";
import { sessionDirName } from "../../infra/session-dir.js";
import { listCheckpointFilesInDir } from "./files.js";
import { readCheckpointMeta } from "./meta.js";
import { readLatestInDir } from "./recovery.js";
import { type CheckpointSummary, summarizeCheckpoint } from "./summary.js";

export interface CheckpointSessionEntry {
  /** directory name (sessionDirName of the key) */
  dir: string;
  /** absolute path of the directory */
  path: string;
  /** raw session key from the latest valid checkpoint; null when the directory holds none */
  sessionKey: string | null;
}

export async function listCheckpointSessions(stateDir: string, fs: FsOps = nodeFsOps): Promise<CheckpointSessionEntry[]> {
  const root = checkpointsRoot(stateDir);
  const names = await readdirOrEmpty(fs, root);
  const out: CheckpointSessionEntry[] = [];
  for (const name of names.sort()) {
    const dir = path.join(root, name);
    try {
      if (!(await fs.stat(dir)).isDirectory()) continue;
    } catch {
      continue;
    }
    out.push({ dir: name, path: dir, sessionKey: await sessionKeyOfDir(dir, fs) });
  }
  return out;
}

/** The raw key of a session directory, from the pointer or else the newest valid `meta` that maps here. */
async function sessionKeyOfDir(dir: string, fs: FsOps): Promise<string | null> {
  const base = path.basename(dir);
  const pointer = await readPointerInDir(dir, null, fs);
  if (pointer && sessionDirName(pointer.session_key) === base) {
    try {
      if ((await fs.stat(pointer.path)).isFile()) return pointer.session_key;
    } catch {
      // the pointer names a missing file: look at the files
    }
  }
  const files = await listCheckpointFilesInDir(dir, fs);
  for (const f of [...files].reverse()) {
    try {
      const meta = readCheckpointMeta(f.path);
      if (sessionDirName(meta.session_key) === base) return meta.session_key;
    } catch {
      // not a valid checkpoint head: try the next older one
    }
  }
  return null;
}

/** The session's `_latest.json`, validated (null when missing, malformed or for another key). */
export async function readLatestPointer(opts: CheckpointStoreOptions, sessionKey: string): Promise<LatestPointer | null> {
  return readPointerInDir(sessionDirOf(opts, sessionKey), sessionKey, fsOf(opts));
}

/**
 * What `status` shows of a key's latest checkpoint: the pointer's summary when it names the highest
 * file at the size it recorded, else the recovering read's. null when none.
 */
export async function readLatestSummary(opts: CheckpointStoreOptions, sessionKey: string): Promise<CheckpointSummary | null> {
  const fs = fsOf(opts);
  const dir = sessionDirOf(opts, sessionKey);
  const pointer = await readPointerInDir(dir, sessionKey, fs);
  if (pointer?.summary && (await pointerIsCurrent(pointer, (await listCheckpointFilesInDir(dir, fs)).at(-1)?.id, fs))) {
    return pointer.summary;
  }
  const cp = await readLatestInDir(dir, sessionKey, fs);
  return cp ? summarizeCheckpoint(cp) : null;
}
