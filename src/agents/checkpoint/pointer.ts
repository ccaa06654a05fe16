/**
 * `_latest.json`: a hint naming a session's newest checkpoint, written after the checkpoint is
 * durable; readers validate it (canonical id, path === "<id>.yaml", same key) and fall back.
 */
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { readTextCapped } from "../../infra/capped-read.js";
import { wellFormed } from "../text/visible.js";
import { checkpointFileName, isOutOfRangeCheckpointFileName, parseCheckpointId } from "./ids.js";
import { type Checkpoint, CHECKPOINT_SUMMARY, type CheckpointSummary } from "./schema.js";
import { readShape } from "./validate.js";

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
  /** what `status` shows of this checkpoint */
  summary?: CheckpointSummary;
}

/** The pointer of a session dir; null when missing, malformed or another key's (an out-of-range id: in `problems`). */
export async function readPointerInDir(
  dir: string,
  expectedSessionKey: string | null,
  fs: FsOps,
  problems?: string[],
): Promise<LatestPointer | null> {
  let data: unknown;
  try {
    data = JSON.parse(await readTextCapped(fs, path.join(dir, POINTER_FILE), MAX_POINTER_BYTES));
  } catch {
    return null; // missing, unreadable or not JSON: recovery scans the directory instead
  }
  if (typeof data !== "object" || data === null) return null;
  const { checkpoint_id, path: file, session_key, updated_at, session_id, input_tokens, bytes, summary } = data as Record<string, unknown>;
  if (typeof checkpoint_id !== "string" || parseCheckpointId(checkpoint_id) === null) {
    if (typeof checkpoint_id === "string" && isOutOfRangeCheckpointFileName(`${checkpoint_id}.yaml`)) {
      problems?.push(`ignoring ${POINTER_FILE}: ${checkpoint_id.slice(0, 40)}: checkpoint id out of range (corrupt)`);
    }
    return null;
  }
  if (file !== checkpointFileName(checkpoint_id) || typeof session_key !== "string") return null;
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
    ...summaryOf(summary, checkpoint_id),
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
export async function writePointerInDir(dir: string, cp: Checkpoint, bytes: number, fs: FsOps): Promise<void> {
  const body = {
    checkpoint_id: cp.meta.checkpoint_id,
    path: checkpointFileName(cp.meta.checkpoint_id),
    session_key: cp.meta.session_key, // the writer checked it is its own key
    updated_at: new Date().toISOString(),
    session_id: cp.meta.session_id,
    input_tokens: cp.meta.token_usage.input_tokens,
    bytes,
    summary: summarizeCheckpoint(cp),
  };
  await writeFileAtomic(path.join(dir, POINTER_FILE), `${JSON.stringify(body, null, 2)}\n`, { fs, durable: false });
}

/** Longest topic kept in the pointer (status shows the start of it). */
const TOPIC_CHARS = 200;

export function summarizeCheckpoint(cp: Checkpoint): CheckpointSummary {
  return {
    checkpoint_id: cp.meta.checkpoint_id,
    trigger: cp.meta.trigger,
    created_at: cp.meta.created_at,
    compaction_count: cp.meta.compaction_count,
    token_usage: { ...cp.meta.token_usage },
    counts: {
      decisions: cp.decisions.length,
      files_read: cp.resources.files_read.length,
      files_modified: cp.resources.files_modified.length,
      tools_used: cp.resources.tools_used.length,
      errors: cp.thread.errors.length,
      open_items: cp.open_items.length,
      learnings: cp.learnings.length,
    },
    topic: cp.working.topic.slice(0, TOPIC_CHARS),
    status: cp.working.status,
  };
}

/** The pointer's summary when it is one, of `checkpointId`. */
function summaryOf(v: unknown, checkpointId: string): { summary?: CheckpointSummary } {
  const summary = readShape(v, CHECKPOINT_SUMMARY);
  return summary?.checkpoint_id === checkpointId ? { summary } : {};
}
