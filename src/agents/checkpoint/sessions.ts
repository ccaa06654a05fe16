/**
 * Session directories under `<stateDir>/context/checkpoints`, and only a checkpoint's `meta` block,
 * for `list` and `status`: the file's head is read by a line reader that knows the writer's layout,
 * anything else by the YAML parser. Synchronous: 1,000 small synchronous reads cost a fraction of as
 * many thread-pool round trips.
 */
import { closeSync } from "node:fs";
import path from "node:path";
import { nodeFsOps, readdirOrEmpty, type FsOps } from "../../infra/fs-ops.js";
import { openRegularFileSync, readAtSync } from "../../infra/regular-file.js";
import { checkpointSessionDir, checkpointsRoot, sessionDirName } from "../../infra/session-dir.js";
import { assertNamedAs, type CheckpointStoreOptions, listCheckpointFilesInDir, readLatestInDir } from "./files.js";
import { pointerIsCurrent, readPointerInDir, summarizeCheckpoint, type LatestPointer, unreadable } from "./files.js";
import type { CheckpointMeta, CheckpointSummary } from "./schema.js";
import { validateCheckpointMeta } from "./validate.js";
import { parseYamlData } from "./yaml.js";

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
  const out: CheckpointSessionEntry[] = [];
  for (const name of (await readdirOrEmpty(fs, root)).sort()) {
    const dir = path.join(root, name);
    if (!(await fs.stat(dir).catch(() => null))?.isDirectory()) continue;
    out.push({ dir: name, path: dir, sessionKey: await sessionKeyOfDir(dir, fs) });
  }
  return out;
}

/** The raw key of a session directory, from the pointer or else the newest valid `meta` that maps here. */
async function sessionKeyOfDir(dir: string, fs: FsOps): Promise<string | null> {
  const base = path.basename(dir);
  const pointer = await readPointerInDir(dir, null, fs);
  if (pointer && sessionDirName(pointer.session_key) === base) {
    // a pointer naming a missing file: look at the files
    if ((await fs.stat(pointer.path).catch(() => null))?.isFile()) return pointer.session_key;
  }
  for (const f of (await listCheckpointFilesInDir(dir, fs)).reverse()) {
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
  return readPointerInDir(checkpointSessionDir(opts.stateDir, sessionKey), sessionKey, opts.fs ?? nodeFsOps);
}

/**
 * What `status` shows of a key's latest checkpoint: the pointer's summary when it names the highest
 * file at the size it recorded, else the recovering read's. null when none.
 */
export async function readLatestSummary(opts: CheckpointStoreOptions, sessionKey: string): Promise<CheckpointSummary | null> {
  const fs = opts.fs ?? nodeFsOps;
  const dir = checkpointSessionDir(opts.stateDir, sessionKey);
  const pointer = await readPointerInDir(dir, sessionKey, fs);
  if (pointer?.summary && (await pointerIsCurrent(pointer, (await listCheckpointFilesInDir(dir, fs)).at(-1)?.id, fs))) {
    return pointer.summary;
  }
  const cp = await readLatestInDir(dir, sessionKey, fs);
  return cp ? summarizeCheckpoint(cp) : null;
}

const HEAD_BYTES = 4096;
const META_END = "\nworking:";

function readHead(file: string): string {
  let opened: { fd: number; size: number };
  try {
    opened = openRegularFileSync(file);
  } catch (err) {
    throw unreadable(file, err);
  }
  try {
    const head = readAtSync(opened.fd, 0, HEAD_BYTES);
    // a long meta block (long key or file name): the whole file
    const text = head.includes(META_END) || head.length < HEAD_BYTES ? head : readAtSync(opened.fd, 0, opened.size);
    return text.toString("utf8");
  } finally {
    closeSync(opened.fd);
  }
}

const LINE_RE = /^( {0,4})([a-z_]+):(?: (.*))?$/;

/** The writer's layout: schema, schema_version, meta (2-space keys, token_usage at 4); else null. */
function fastMeta(head: string): Record<string, unknown> | null {
  const root: Record<string, unknown> = {};
  let meta: Record<string, unknown> | null = null;
  let usage: Record<string, unknown> | null = null;
  for (const line of head.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE_RE.exec(line);
    if (!m) return null;
    const [, indent = "", key = "", raw] = m;
    const target = indent === "" ? root : indent === "  " && meta ? meta : indent === "    " && usage ? usage : null;
    if (!target || key in target) return null;
    if (raw === undefined) {
      if (indent === "" && key === "meta") target[key] = meta = {};
      else if (indent === "  " && key === "token_usage") target[key] = usage = {};
      else return null;
      continue;
    }
    // a scalar as the writer emits it: JSON's forms, which YAML reads alike; else the YAML parser decides
    try {
      target[key] = JSON.parse(raw);
    } catch {
      return null;
    }
    if (typeof target[key] === "object" && target[key] !== null) return null;
  }
  return root;
}

/** The validated `meta` of one checkpoint file; CheckpointError naming the file on any problem. */
export function readCheckpointMeta(file: string): CheckpointMeta {
  const text = readHead(file);
  const end = text.indexOf(META_END);
  const head = end >= 0 ? text.slice(0, end + 1) : text;
  // without the end of `meta` in it, `text` is the whole file
  const meta = validateCheckpointMeta((end >= 0 ? fastMeta(head) : null) ?? parseYamlData(head, file), file);
  assertNamedAs(file, meta.checkpoint_id);
  return meta;
}
