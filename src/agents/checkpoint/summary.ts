/** What `status` shows of a latest checkpoint: stored in the pointer so `status` parses no YAML. */
import type { Checkpoint, CheckpointTrigger, TokenUsage, WorkingStatus } from "./schema.js";
import { CHECKPOINT_TRIGGERS, WORKING_STATUSES } from "./schema.js";

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
