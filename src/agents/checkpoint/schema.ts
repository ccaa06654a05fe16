/**
 * Checkpoint schema v1 (spec §5.3): the types of one `cp_NNN.yaml`, read from the field table
 * (fields.ts); docs/checkpoint-schema.md says what each field means. Features depend on the
 * schema, never the reverse.
 */
import type * as F from "./fields.js";
import type { Shape } from "./fields.js";
export {
  BREAKDOWN_CATEGORIES,
  CHECKPOINT_SCHEMA,
  CHECKPOINT_SCHEMA_VERSION,
  CHECKPOINT_TRIGGERS,
  FILE_STATES,
  HASH_SCOPES,
  STATE_FILE_NAMES,
  WORKING_STATUSES,
} from "./fields.js";

export type CheckpointTrigger = (typeof F.CHECKPOINT_TRIGGERS)[number];
export type WorkingStatus = (typeof F.WORKING_STATUSES)[number];
export type BreakdownCategory = (typeof F.BREAKDOWN_CATEGORIES)[number];
export type HashScope = (typeof F.HASH_SCOPES)[number];
export type FileState = (typeof F.FILE_STATES)[number];

export type TokenUsage = Shape<typeof F.TOKEN_USAGE>;
export type CheckpointMeta = Shape<typeof F.META>;
/** What a request holds, by category, in tokens (issue 27); `categories` sum to `total_tokens`. */
export type ContextBreakdown = Shape<typeof F.BREAKDOWN>;
/** One of the largest items of a request (a message, or the system prompt / tool definitions). */
export type BreakdownItem = Shape<typeof F.BREAKDOWN_ITEM>;
export type LastToolCall = Shape<typeof F.LAST_TOOL_CALL>;
export type WorkingState = Shape<typeof F.WORKING>;
export type Decision = Shape<typeof F.DECISION>;
export type Resources = Shape<typeof F.RESOURCES>;
export type KeyExchange = Shape<typeof F.KEY_EXCHANGE>;
export type ExchangeRole = KeyExchange["role"];
export type ToolFailure = Shape<typeof F.TOOL_FAILURE>;
export type Thread = Shape<typeof F.THREAD>;
/** The work ledger (issue 10): what the session did mechanically, whole session. */
export type WorkLedger = Shape<typeof F.WORK>;
export type WorkFile = Shape<typeof F.WORK_FILE>;
export type WorkCommand = Shape<typeof F.WORK_COMMAND>;
/** One turn (issue 25): a user request and the agent's own last text of that turn. */
export type WorkTurn = Shape<typeof F.WORK_TURN>;
/** One sub-agent / task tool call (issue 25): what was asked of it and what came back. */
export type WorkTask = Shape<typeof F.WORK_TASK>;
/** The workspace when the checkpoint was written (issue 17): facts read from disk, never captured text. */
export type WorkspaceSnapshot = Shape<typeof F.WORKSPACE>;
export type WorkspaceFile = Shape<typeof F.WORKSPACE_FILE>;
export type WorkspaceGit = Shape<typeof F.WORKSPACE_GIT>;
/** A stored tool output the checkpoint points at (issue 15). */
export type ArtifactRef = Shape<typeof F.ARTIFACT_REF>;
/**
 * Set only on a checkpoint the NEXT session wrote from the state files of a session that ended
 * before checkpointing them (issue 11, spec §7.3/§12); `meta.session_id` is the ended session.
 */
export type RecoveredState = Shape<typeof F.RECOVERED>;

export type Checkpoint = {
  schema: typeof F.CHECKPOINT_SCHEMA;
  schema_version: typeof F.CHECKPOINT_SCHEMA_VERSION;
} & Shape<typeof F.CHECKPOINT_FIELDS>;

/** What a caller hands to the store: the store assigns the id and the back link. */
export type CheckpointDraft = Omit<Checkpoint, "meta"> & {
  meta: Omit<CheckpointMeta, "checkpoint_id" | "previous_checkpoint">;
};

/** Who a checkpoint is about, as the engine knows it, and the workspace its drift record is taken against. */
export interface SessionIdentity {
  /** the host's key as stored (canonicalSessionKey) */
  sessionKey: string;
  sessionId: string | null;
  sessionFile: string | null;
  agentId: string | null;
  channel: string | null;
  /** the session's working directory; absent or null: no workspace record */
  cwd?: string | null;
}
