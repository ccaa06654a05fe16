/**
 * Checkpoint schema v1 (spec §5.3): the typed shape of one `cp_NNN.yaml` file.
 *
 * Two additive fields beyond the spec's listing, both optional for readers:
 * - `meta.session_id`: the Pi session id that wrote the checkpoint (per-session
 *   compaction counting and stale-state detection need it);
 * - `thread.errors`: tool failures captured by `tool_result` (issue: failures
 *   go to the thread's errors so a resumed agent does not retry them blindly).
 */

import type { WorkspaceSnapshot } from "./drift/workspace-types.js";

export type { WorkspaceSnapshot } from "./drift/workspace-types.js";

export const CHECKPOINT_SCHEMA = "openclaw/checkpoint" as const;
export const CHECKPOINT_SCHEMA_VERSION = 1 as const;

export const CHECKPOINT_TRIGGERS = ["auto-80pct", "compaction", "session-end"] as const;
export type CheckpointTrigger = (typeof CHECKPOINT_TRIGGERS)[number];

export const WORKING_STATUSES = ["in_progress", "idle", "waiting_for_user"] as const;
export type WorkingStatus = (typeof WORKING_STATUSES)[number];

export interface TokenUsage {
  input_tokens: number;
  context_window: number;
  /** 0..1 (may exceed 1 on overflow) */
  utilization: number;
}

export interface CheckpointMeta {
  /** "cp_001", "cp_1000": numeric part is the id */
  checkpoint_id: string;
  /** raw session key, exactly as the host passed it */
  session_key: string;
  session_id: string | null;
  session_file: string | null;
  /** ISO-8601 UTC */
  created_at: string;
  trigger: CheckpointTrigger;
  compaction_count: number;
  token_usage: TokenUsage;
  previous_checkpoint: string | null;
  channel: string | null;
  agent_id: string | null;
}

export interface LastToolCall {
  name: string;
  params_summary: string;
}

export interface WorkingState {
  topic: string;
  status: WorkingStatus;
  interrupted: boolean;
  last_tool_call: LastToolCall | null;
  next_action: string;
}

export interface Decision {
  id: string;
  what: string;
  /** ISO-8601 UTC */
  when: string;
}

export interface Resources {
  files_read: string[];
  files_modified: string[];
  tools_used: string[];
}

export type ExchangeRole = "user" | "agent";

export interface KeyExchange {
  role: ExchangeRole;
  gist: string;
}

export interface ToolFailure {
  tool: string;
  /** path / command / other target the tool was aimed at ("" when unknown) */
  target: string;
  /** short single-line gist of the error text */
  error: string;
  /** ISO-8601 UTC */
  when: string;
}

export interface Thread {
  summary: string;
  key_exchanges: KeyExchange[];
  errors: ToolFailure[];
}

export interface Checkpoint {
  schema: typeof CHECKPOINT_SCHEMA;
  schema_version: typeof CHECKPOINT_SCHEMA_VERSION;
  meta: CheckpointMeta;
  working: WorkingState;
  decisions: Decision[];
  resources: Resources;
  thread: Thread;
  open_items: string[];
  learnings: string[];
  /** additive, optional (issue 17): the workspace as it was at checkpoint time; absent in older files */
  workspace?: WorkspaceSnapshot;
}

/** What a caller hands to the store: the store assigns the id and the back link. */
export type CheckpointDraft = Omit<Checkpoint, "meta"> & {
  meta: Omit<CheckpointMeta, "checkpoint_id" | "previous_checkpoint">;
};
