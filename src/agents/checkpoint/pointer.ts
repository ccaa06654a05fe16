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
import type { Checkpoint, CheckpointTrigger, TokenUsage, WorkingStatus } from "./schema.js";
import { CHECKPOINT_TRIGGERS, WORKING_STATUSES } from "./schema.js";

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

/** What `status` shows of a latest checkpoint: stored in the pointer so `status` parses no YAML. */
const COUNT_KEYS = ["decisions", "files_read", "files_modified", "tools_used", "errors", "open_items", "learnings"] as const;
export type CheckpointCounts = Record<(typeof COUNT_KEYS)[number], number>;

export interface CheckpointSummary {
  checkpoint_id: string;
  trigger: CheckpointTrigger;
  created_at: string;
  compaction_count: number;
  token_usage: TokenUsage;
  counts: CheckpointCounts;
  topic: string;
  status: WorkingStatus;
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

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** A summary as read back from the pointer, or null when any field is missing or wrong. */
export function parseSummary(v: unknown, checkpointId: string): CheckpointSummary | null {
  if (typeof v !== "object" || v === null) return null;
  const s = v as Record<string, unknown>;
  const tu = s.token_usage as Record<string, unknown> | null | undefined;
  const counts = s.counts as Record<string, unknown> | null | undefined;
  if (s.checkpoint_id !== checkpointId) return null;
  if (!(CHECKPOINT_TRIGGERS as readonly unknown[]).includes(s.trigger) || !(WORKING_STATUSES as readonly unknown[]).includes(s.status)) return null;
  if (typeof s.created_at !== "string" || typeof s.topic !== "string" || !isCount(s.compaction_count)) return null;
  if (!tu || !isCount(tu.input_tokens) || !isCount(tu.context_window) || typeof tu.utilization !== "number" || !Number.isFinite(tu.utilization)) return null;
  if (!counts || !COUNT_KEYS.every((k) => isCount(counts[k]))) return null;
  return s as unknown as CheckpointSummary;
}
