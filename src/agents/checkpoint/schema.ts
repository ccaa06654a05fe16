/**
 * Checkpoint schema v1 (spec §5.3): the typed shape of one `cp_NNN.yaml` file.
 *
 * Two additive fields beyond the spec's listing, both optional for readers:
 * - `meta.session_id`: the Pi session id that wrote the checkpoint (per-session
 *   compaction counting and stale-state detection need it);
 * - `thread.errors`: tool failures captured by `tool_result` (issue: failures
 *   go to the thread's errors so a resumed agent does not retry them blindly);
 * - `work` (optional): the work ledger, what the session did mechanically (files changed
 *   with a change gist, commands with outcomes, open failures, the user's requests, the
 *   agent's last report). Readers that predate it ignore it (docs/checkpoint-schema.md).
 */

// The schema owns every type a checkpoint stores (the workspace record, the artifact refs) and
// imports nothing: features (drift/, artifacts/, the renderer) depend on it, never the reverse.

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
  /** additive, optional (issue 27): what filled the window when it was written; absent in older files */
  breakdown?: ContextBreakdown;
}

/** The categories of a context breakdown, in display order: fixed names (never user content). */
export const BREAKDOWN_CATEGORIES = [
  "system_prompt",
  "tool_definitions",
  "user",
  "assistant_text",
  "thinking",
  "tool_calls",
  "tool_results",
  "images",
  "summaries",
  "gauge",
  "restore",
  "recall",
  "handles",
  "other",
  "unattributed",
] as const;
export type BreakdownCategory = (typeof BREAKDOWN_CATEGORIES)[number];

/** One of the largest items of a request (a message, or the system prompt / tool definitions). */
export interface BreakdownItem {
  /** user | assistant | toolResult | custom | compactionSummary | … */
  role: string;
  /** the tool of a tool result or of the assistant's largest call; null otherwise */
  tool: string | null;
  /** path or command gist the tool was aimed at (redacted, cut); "" when none */
  target: string;
  tokens: number;
  /** the artifact handle of a stored output (aged or stashed); null when not stored */
  handle: string | null;
}

/**
 * What a request holds, by category (issue 27, docs/checkpoint-schema.md#breakdown). Every figure
 * is in tokens; `categories` sum to `total_tokens`.
 */
export interface ContextBreakdown {
  /** the request's size: the provider's count of the prefix it measured + the estimate of the rest */
  total_tokens: number;
  /** chars/4 of the whole request (the one estimator), before reconciliation */
  estimated_tokens: number;
  /** "sdk": reconciled with the usage a reply reported; "estimate": no usable usage (before the first reply, after a compaction) */
  source: "sdk" | "estimate";
  messages: number;
  categories: Partial<Record<BreakdownCategory, number>>;
  /** tool results by tool name, largest first */
  tool_results_by_tool: Array<{ tool: string; tokens: number }>;
  /** tool definitions by tool, largest first ([] when the host does not expose them) */
  tool_definitions_by_tool: Array<{ tool: string; tokens: number }>;
  largest: BreakdownItem[];
  /** what the context manager took out of this request (before reconciliation: chars/4) */
  removed: {
    aged_offload: { tokens: number; items: number };
    /** smart trim (seed 003), when on; null: not run */
    smart_trim: { tokens: number; items: number } | null;
  };
  headroom: {
    /** tokens left until the checkpoint threshold (negative: past it) */
    to_checkpoint: number;
    /** tokens left until the host compacts; null when the host does not say */
    to_compaction: number | null;
  };
  /**
   * The latest request's estimated prompt-cache reuse after the one before (issue 37,
   * prompt-cost/reuse.ts, under the caching rules the request was prepared for); absent when unknown
   * or under `promptCache: none`.
   */
  cache_reuse?: {
    /** share of the prompt read from cache, whole percent */
    percent: number;
    prompt_tokens: number;
    /** what broke the reuse when it fell short of what the request before left cached; null: nothing */
    cause: string | null;
    /** whose caching rules the estimate follows (absent in older checkpoints: anthropic) */
    rules?: "anthropic" | "openai";
  };
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

/** One modified file of the work ledger. */
export interface WorkFile {
  path: string;
  /** successful edit calls */
  edits: number;
  /** successful write calls */
  writes: number;
  /** gist of the latest change: "old line → new line", "+ added line", "wrote N lines" */
  change: string;
  /** names the changes declared, newest first (`f()` callables, `Type`, `§ heading` in Markdown); absent in v1.1 files */
  names?: string[];
  /** ISO-8601 UTC of the latest change */
  last: string;
  /** user requests that named the file (path or file name) */
  mentions: number;
  /** true when a later successful shell `rm`/`git rm` removed it (and nothing recreated it); absent otherwise */
  deleted?: boolean;
}

/** One command family (program + subcommand) of the work ledger. */
export interface WorkCommand {
  /** "git push", "npm run check" */
  family: string;
  /** the latest command line of the family, gisted */
  command: string;
  runs: number;
  failures: number;
  /** outcome of the latest run */
  ok: boolean;
  /** exit code of the latest run when the tool reported one */
  exit: number | null;
  /** ISO-8601 UTC of the latest run */
  when: string;
}

/** One turn of the turn log (issue 25): a user request and the agent's own last text of that turn. */
export interface WorkTurn {
  /** gist of the request */
  request: string;
  /** gist of the agent's last text of the turn ("" when it wrote none) */
  outcome: string;
  /** code names the agent wrote in backticks in that text (its own markup), optional */
  names?: string[];
}

/** One sub-agent / task tool call (issue 25): what was asked of it and what came back. */
export interface WorkTask {
  tool: string;
  /** the tool call id */
  id: string;
  /** gist of what was asked (its prompt / description argument) */
  ask: string;
  /** gist of the result ("" while none came back) */
  outcome: string;
  /** null: no result yet */
  ok: boolean | null;
}

/** Optional `work` section: the work ledger (see docs/checkpoint-schema.md). */
export interface WorkLedger {
  /** modified files, most important first (edits, recency, mentions in user requests) */
  files: WorkFile[];
  /** command families, most recent first */
  commands: WorkCommand[];
  /** failures still open at this point (no later success on the same target or command family), oldest first */
  open_failures: ToolFailure[];
  /** gists of the user's requests, newest first; the session's first request is always the last entry */
  requests: string[];
  /** the agent's latest text to the user, one line ("" when none) */
  last_report: string;
  /** true when the agent's latest text came after the latest user request */
  answered: boolean;
  /** additive, optional (issue 25): turns newest first, the session's first turn always the last entry */
  turns?: WorkTurn[];
  /** additive, optional (issue 25): sub-agent / task tool calls, newest first */
  tasks?: WorkTask[];
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
  /** optional (additive): absent in files from writers that predate it */
  work?: WorkLedger;
  /** additive, optional (issue 15): handles of the session's stored tool outputs that matter; absent in older files */
  artifacts?: ArtifactRef[];
  /** additive, optional (issue 11): set only on a checkpoint bundling a previous session's state */
  recovered?: RecoveredState;
}

/** The incremental state files of a session: what a `recovered` section may name. */
export const STATE_FILE_NAMES = ["decisions", "thread", "resources", "open_items", "learnings", "work"] as const;

/**
 * Optional `recovered` section (issue 11, spec §7.3/§12): present on a checkpoint written by the
 * NEXT session from the state files of a session whose process ended before it checkpointed
 * them. `meta.session_id` is the session the work belongs to (the one that ended); this section
 * says who bundled it and from what.
 */
export interface RecoveredState {
  /** the session that found the state files and wrote this checkpoint */
  by_session_id: string | null;
  /** newest `updated_at` of the bundled state files: the last moment the ended session captured */
  state_updated_at: string;
  /** the state files bundled ("thread", "work", ...) */
  files: string[];
  /**
   * files the ended session modified after its own latest checkpoint (all it modified when it
   * wrote none): the "later work" the resume block's workspace drift attributes to the session
   */
  files_modified_since_checkpoint: string[];
}

/** What a caller hands to the store: the store assigns the id and the back link. */
export type CheckpointDraft = Omit<Checkpoint, "meta"> & {
  meta: Omit<CheckpointMeta, "checkpoint_id" | "previous_checkpoint">;
};

/**
 * The optional `workspace` block of a checkpoint (issue 17): what the files the session modified
 * and the git checkout looked like when the checkpoint was written, so a restore can say what
 * moved since. Everything here is a fact read from disk, never captured text.
 */

/** How a file's content hash was taken. */
export const HASH_SCOPES = ["full", "sampled", "none"] as const;
export type HashScope = (typeof HASH_SCOPES)[number];

/** present: a regular file; missing: no such path; other: not a regular file; unreadable: stat/read failed. */
export const FILE_STATES = ["present", "missing", "other", "unreadable"] as const;
export type FileState = (typeof FILE_STATES)[number];

export interface WorkspaceFile {
  /** as listed in `resources.files_modified` (relative to `cwd`, or absolute) */
  path: string;
  state: FileState;
  /** bytes; null unless present */
  size: number | null;
  /** whole milliseconds since the epoch; null unless present */
  mtime_ms: number | null;
  /** "sha1:<hex>" of the content (scope full) or of size + head + tail (scope sampled); null otherwise */
  hash: string | null;
  hash_scope: HashScope;
}

export interface WorkspaceGit {
  /** branch name HEAD points at; null when detached or unknown */
  branch: string | null;
  /** commit id HEAD resolves to; null when the branch has no commit yet or refs are unreadable */
  head: string | null;
  /** a tracked file differs from the index (or a conflict); null when not checked (index too large, unreadable) */
  dirty: boolean | null;
}

export interface WorkspaceSnapshot {
  /** absolute working directory the paths are relative to */
  cwd: string;
  files: WorkspaceFile[];
  /** modified files not recorded because of the cap (the oldest ones) */
  files_omitted: number;
  /** null: cwd is not inside a git work tree */
  git: WorkspaceGit | null;
}

/** One entry of the optional `artifacts` list (issue 15): a stored tool output the checkpoint points at. */
export interface ArtifactRef {
  handle: string;
  tool: string;
  /** path / command the tool was aimed at ("" when unknown), redacted */
  target: string;
  /** line range of a partial read ("120-219", "120-"), optional */
  lines?: string;
  bytes: number;
}

/**
 * Who a checkpoint is about, as the engine knows it: the fields of `meta` that name the
 * session, and the workspace its drift record is taken against.
 */
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
