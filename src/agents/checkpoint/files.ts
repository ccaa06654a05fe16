/** Reading one checkpoint file and listing the checkpoint files of a session directory. */
import path from "node:path";
import { errorCode, nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import type { Checkpoint } from "./schema.js";
import { CheckpointError } from "./errors.js";
import { TEMP_FILE_RE } from "../../infra/atomic-file.js";
import { isOutOfRangeCheckpointFileName, parseCheckpointFileName } from "./ids.js";
import { fsOf, sessionDirOf, type CheckpointStoreOptions } from "./options.js";
import { wellFormed } from "./text.js";
import { parseCheckpoint } from "./yaml.js";
import { FileTooLargeError, NotAFileError, readTextCapped } from "../../infra/capped-read.js";
import { MAX_CHECKPOINT_BYTES } from "./parse-guard.js";

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

/** One checkpoint file, validated, named as its id, of `expectedSessionKey` when given; else a CheckpointError. */
export async function readCheckpointFile(file: string, expectedSessionKey?: string, fs: FsOps = nodeFsOps): Promise<Checkpoint> {
  let text: string;
  try {
    text = await readTextCapped(fs, file, MAX_CHECKPOINT_BYTES);
  } catch (err) {
    if (err instanceof FileTooLargeError || err instanceof NotAFileError) throw new CheckpointError(file, undefined, `${err.message}: not read`, { cause: err });
    const code = errorCode(err);
    throw new CheckpointError(file, undefined, code === "ENOENT" ? "file not found" : `cannot read (${code ?? String(err)})`, { cause: err });
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
  return listCheckpointFilesInDir(sessionDirOf(opts, sessionKey), fsOf(opts));
}
