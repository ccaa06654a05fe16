/**
 * `_latest.json`: a hint naming a session's newest checkpoint, written after the checkpoint is
 * durable; readers validate it (canonical id, path === "<id>.yaml", same key) and fall back.
 */
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { readTextCapped } from "../../infra/capped-read.js";
import { checkpointFileName, isOutOfRangeCheckpointFileName, parseCheckpointId } from "./ids.js";
import { type CheckpointSummary, parseSummary } from "./summary.js";
import { wellFormed } from "./text.js";

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
  /** what `status` shows of this checkpoint (see summary.ts) */
  summary?: CheckpointSummary;
}

/** What the writer stores beside the id (see LatestPointer). */
export type PointerMeta = Required<Pick<LatestPointer, "session_id" | "input_tokens" | "bytes">> & Pick<LatestPointer, "summary">;

/** The pointer of a session dir; null when missing, malformed or another key's (an out-of-range id: in `problems`). */
export async function readPointerInDir(
  dir: string,
  expectedSessionKey: string | null,
  fs: FsOps,
  problems?: string[],
): Promise<LatestPointer | null> {
  let raw: string;
  try {
    raw = await readTextCapped(fs, path.join(dir, POINTER_FILE), MAX_POINTER_BYTES);
  } catch {
    return null; // missing or unreadable: recovery scans the directory instead
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const { checkpoint_id, path: file, session_key, updated_at, session_id, input_tokens, bytes, summary } = data as Record<string, unknown>;
  if (typeof checkpoint_id !== "string" || parseCheckpointId(checkpoint_id) === null) {
    if (typeof checkpoint_id === "string" && isOutOfRangeCheckpointFileName(`${checkpoint_id}.yaml`)) {
      problems?.push(`ignoring ${POINTER_FILE}: ${checkpoint_id.slice(0, 40)}: checkpoint id out of range (corrupt)`);
    }
    return null;
  }
  if (typeof file !== "string" || file !== checkpointFileName(checkpoint_id)) return null;
  if (typeof session_key !== "string") return null;
  if (expectedSessionKey !== null && wellFormed(session_key) !== wellFormed(expectedSessionKey)) return null;
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
    ...(parseSummary(summary, checkpoint_id) ? { summary: summary as CheckpointSummary } : {}),
  };
}

/** The pointer names the highest file `topId` at the size it recorded: its fields stand for that file. */
export async function pointerIsCurrent(p: LatestPointer, topId: string | undefined, fs: FsOps): Promise<boolean> {
  if (p.bytes === undefined || p.checkpoint_id !== topId) return false;
  try {
    return (await fs.stat(p.path)).size === p.bytes;
  } catch {
    return false; // changed or gone: the caller reads the checkpoints
  }
}

/** Atomic but not fsync'd: readers look for newer files anyway (a power loss leaves it a step behind). */
export async function writePointerInDir(
  dir: string,
  checkpointId: string,
  sessionKey: string,
  fs: FsOps,
  now = new Date(),
  meta?: PointerMeta,
): Promise<void> {
  const body = {
    checkpoint_id: checkpointId,
    path: checkpointFileName(checkpointId),
    session_key: wellFormed(sessionKey),
    updated_at: now.toISOString(),
    ...(meta ? { session_id: meta.session_id, input_tokens: meta.input_tokens, bytes: meta.bytes } : {}),
    ...(meta?.summary ? { summary: meta.summary } : {}),
  };
  await writeFileAtomic(path.join(dir, POINTER_FILE), `${JSON.stringify(body, null, 2)}\n`, { fs, durable: false });
}
