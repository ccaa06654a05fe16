/** Finding the state dir, its checkpoint sessions and their files, with clear errors. */
import { statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { type Checkpoint, type CheckpointMeta } from "../agents/checkpoint/schema.js";
import { CheckpointError } from "../agents/checkpoint/errors.js";
import { checkpointSessionDir, sessionDirName } from "../infra/session-dir.js";
import { type CheckpointFileEntry, listCheckpointFilesInDir, readCheckpointFile } from "../agents/checkpoint/files.js";
import { listCheckpointSessions } from "../agents/checkpoint/sessions.js";
import { parseCheckpointId } from "../agents/checkpoint/ids.js";
import { readCheckpointMeta } from "../agents/checkpoint/sessions.js";
import { wellFormed } from "../agents/text/visible.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import { CliError, EXIT_USAGE } from "./errors.js";

export interface SessionRef {
  /** raw key, or null when no valid checkpoint in the directory names it */
  sessionKey: string | null;
  dir: string;
  path: string;
}

export interface FileResult {
  id: string;
  n: number;
  path: string;
  checkpoint: Checkpoint | null;
  /** why the file is not a valid checkpoint of this session */
  error: string | null;
}

export function requireStateDir(stateDir: string): void {
  let isDir = false;
  try {
    isDir = statSync(stateDir).isDirectory();
  } catch {
    throw new CliError(`state dir not found: ${stateDir}`);
  }
  if (!isDir) throw new CliError(`state dir is not a directory: ${stateDir}`);
}

function dirExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** All sessions, or the one of `sessionKey` (error when it has no checkpoint directory). */
export async function selectSessions(stateDir: string, sessionKey: string | null): Promise<SessionRef[]> {
  requireStateDir(stateDir);
  if (sessionKey !== null) {
    const path = checkpointSessionDir(stateDir, sessionKey);
    if (!dirExists(path)) throw new CliError(`no checkpoints for session key ${JSON.stringify(sessionKey)} in ${stateDir}`);
    return [{ sessionKey, dir: sessionDirName(sessionKey), path }];
  }
  return listCheckpointSessions(stateDir);
}

export function requireSessionKey(key: string | null, command: string): string {
  if (key === null) throw new CliError(`${command} needs --session-key <key> (see "list" for the keys)`, EXIT_USAGE);
  return key;
}

/** Every cp_N.yaml of a session directory in numeric order, each read and validated. */
export async function readSessionFiles(session: SessionRef): Promise<FileResult[]> {
  let files: CheckpointFileEntry[];
  try {
    files = await listCheckpointFilesInDir(session.path, nodeFsOps);
  } catch (e) {
    throw new CliError(`cannot read ${session.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const out: FileResult[] = [];
  for (const { id, n, path } of files) {
    const f = { id, n };
    try {
      const checkpoint = await readCheckpointFile(path, session.sessionKey ?? undefined);
      const error = sessionDirName(checkpoint.meta.session_key) === session.dir ? null : `${f.id}.yaml: meta.session_key: belongs to another session directory`;
      out.push({ ...f, path, checkpoint: error ? null : checkpoint, error });
    } catch (e) {
      out.push({ ...f, path, checkpoint: null, error: e instanceof CheckpointError ? e.message : String(e) });
    }
  }
  return out;
}

export interface MetaResult {
  id: string;
  n: number;
  path: string;
  meta: CheckpointMeta | null;
  /** why the file's head is not a checkpoint meta block of this session */
  error: string | null;
}

/** Every cp_N.yaml of a session directory in numeric order, each with its `meta` block only (list). */
export async function readSessionMetas(session: SessionRef): Promise<MetaResult[]> {
  let files: CheckpointFileEntry[];
  try {
    files = await listCheckpointFilesInDir(session.path, nodeFsOps);
  } catch (e) {
    throw new CliError(`cannot read ${session.path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return files.map(({ id, n, path }) => {
    try {
      const meta = readCheckpointMeta(path);
      if (session.sessionKey !== null && meta.session_key !== wellFormed(session.sessionKey)) {
        return { id, n, path, meta: null, error: `${id}.yaml: meta.session_key: belongs to another session key` };
      }
      if (sessionDirName(meta.session_key) !== session.dir) {
        return { id, n, path, meta: null, error: `${id}.yaml: meta.session_key: belongs to another session directory` };
      }
      return { id, n, path, meta, error: null };
    } catch (e) {
      return { id, n, path, meta: null, error: e instanceof CheckpointError ? e.message : String(e) };
    }
  });
}

/**
 * `cp_003`, `3` (with a session key) or a path to a checkpoint file -> absolute file path.
 * Anything with a path separator or a .yaml ending is taken as a path.
 */
export function resolveCheckpointRef(ref: string, stateDir: string, sessionKey: string | null, command: string): { path: string; sessionKey: string | null } {
  const looksLikePath = ref.includes("/") || ref.includes("\\") || ref.endsWith(".yaml") || isAbsolute(ref);
  if (looksLikePath) return { path: ref, sessionKey };
  let id: string | null = null;
  if (/^\d+$/.test(ref)) {
    const n = Number(ref);
    if (Number.isSafeInteger(n) && n >= 1) id = `cp_${String(n).padStart(3, "0")}`;
  } else if (parseCheckpointId(ref) !== null) id = ref;
  if (id === null) throw new CliError(`not a checkpoint id, number or path: ${JSON.stringify(ref)}`, EXIT_USAGE);
  const key = requireSessionKey(sessionKey, command);
  requireStateDir(stateDir);
  const dir = checkpointSessionDir(stateDir, key);
  if (!dirExists(dir)) throw new CliError(`no checkpoints for session key ${JSON.stringify(key)} in ${stateDir}`);
  return { path: join(dir, `${id}.yaml`), sessionKey: key };
}

/**
 * Read one checkpoint for show/restore: a CliError naming the file on any problem. A file
 * outside the state dir may be anything (`show /etc/shadow`): its error never quotes its
 * content, only which part is wrong or the read error code.
 */
export async function loadCheckpoint(path: string, sessionKey: string | null, stateDir?: string): Promise<{ checkpoint: Checkpoint }> {
  try {
    return { checkpoint: await readCheckpointFile(path, sessionKey ?? undefined) };
  } catch (e) {
    if (stateDir !== undefined && !isInside(stateDir, path)) throw new CliError(`${path}: ${withoutContent(e)}`);
    if (e instanceof CheckpointError) throw new CliError(e.file !== path ? e.message : `${path}: ${e.message.replace(/^[^:]*: /, "")}`);
    throw new CliError(`${path}: ${String(e)}`);
  }
}

function isInside(dir: string, file: string): boolean {
  const rel = relative(resolve(dir), resolve(file));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** "not a checkpoint (<field> is invalid)", "file not found" or "cannot read (EISDIR)": never the file's bytes. */
function withoutContent(e: unknown): string {
  if (!(e instanceof CheckpointError)) return "not a checkpoint file";
  const cause = (e as { cause?: unknown }).cause;
  if (cause !== undefined && (cause as NodeJS.ErrnoException)?.code !== undefined) return e.message.replace(/^[^:]*: /, "");
  if (/: file not found$/.test(e.message)) return "file not found";
  return `not a checkpoint file${e.field ? ` (${e.field} is invalid)` : ""} — outside the state dir, its content is not shown`;
}
