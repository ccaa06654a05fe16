/** Session directories under `<stateDir>/context/checkpoints`, for the CLI. */
import path from "node:path";
import { nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import { checkpointsRoot } from "../session-dir.js";
import { fsOf, sessionDirOf, type CheckpointStoreOptions } from "./options.js";
import { readPointerInDir, type LatestPointer } from "./pointer.js";
import { readLatestInDir } from "./recovery.js";

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
    const latest = await readLatestInDir(dir, null, fs);
    out.push({ dir: name, path: dir, sessionKey: latest?.meta.session_key ?? null });
  }
  return out;
}

/** The session's `_latest.json`, validated (null when missing, malformed or for another key). */
export async function readLatestPointer(opts: CheckpointStoreOptions, sessionKey: string): Promise<LatestPointer | null> {
  return readPointerInDir(sessionDirOf(opts, sessionKey), sessionKey, fsOf(opts));
}
