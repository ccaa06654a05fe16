/**
 * Checkpoint schema v1 (spec §5.3, docs/checkpoint-schema.md) as one field table, in file order: the
 * validator (validate.ts) and the emitter (yaml.ts) follow it, the types below are read from it. Kinds:
 * "str", "time", "id", "enum" quoted; "text" free text (a block literal where exact); "count"
 * (>= 0), "ratio", "int", "bool" plain; "strings" / "texts" lists; "map" / "maps" mappings of
 * `fields`; "counts" numbers under fixed `keys`. Flags: `nullable`; `optional` ("or-null": null
 * reads as absent); `absent`: what a missing field reads as; `match`; `max` list entries; `drop`:
 * an invalid value reads as absent.
 */
import { tryParseHandle } from "../artifacts/handle.js";

export const CHECKPOINT_SCHEMA = "openclaw/checkpoint" as const;
export const CHECKPOINT_SCHEMA_VERSION = 1 as const;
export const CHECKPOINT_TRIGGERS = ["auto-80pct", "compaction", "session-end"] as const;
export const WORKING_STATUSES = ["in_progress", "idle", "waiting_for_user"] as const;
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
/** The incremental state files of a session: what a `recovered` section may name. */
export const STATE_FILE_NAMES = ["decisions", "thread", "resources", "open_items", "learnings", "work"] as const;

type Scalar = "str" | "text" | "time" | "id" | "count" | "ratio" | "int" | "bool" | "strings" | "texts";

/** A string's constraint and how an error names it ("expected <what>"). */
export interface Match {
  test(s: string): boolean;
  what: string;
}

interface Flags {
  nullable?: true;
  optional?: true | "or-null";
  absent?: "null" | "empty";
  match?: Match;
  max?: number;
  drop?: true;
}

export type Field = Flags & { key: string } & (
    | { kind: Scalar }
    | { kind: "enum"; values: readonly string[] }
    | { kind: "map" | "maps"; fields: readonly Field[] }
    | { kind: "counts"; keys: readonly string[] }
  );

// generic so that each field keeps its literal key, kind and flags: the types below are read from them
const f = <K extends string, T extends Scalar, const F extends Flags = {}>(key: K, kind: T, flags?: F) =>
  ({ key, kind, ...flags }) as { key: K; kind: T } & F;
const oneOf = <K extends string, const V extends readonly string[]>(key: K, values: V) =>
  ({ key, kind: "enum", values }) as { key: K; kind: "enum"; values: V };
type Fields = readonly Field[];
const map = <K extends string, const Fs extends Fields, const F extends Flags = {}>(key: K, fields: Fs, flags?: F) =>
  ({ key, kind: "map", fields, ...flags }) as { key: K; kind: "map"; fields: Fs } & F;
const maps = <K extends string, const Fs extends Fields, const F extends Flags = {}>(key: K, fields: Fs, flags?: F) =>
  ({ key, kind: "maps", fields, ...flags }) as { key: K; kind: "maps"; fields: Fs } & F;
const NULLABLE = { nullable: true } as const;
const OPTIONAL = { optional: true } as const;
const OPTIONAL_OR_NULL = { optional: "or-null" } as const;

/** what a checkpoint may hold in `artifacts[].lines` (it is printed unquoted in the restore block) */
export const LINES_RE = /^\d{1,9}-(?:\d{1,9})?$/;
const matching = (re: RegExp, what: string): Match => ({ test: (s) => re.test(s), what });

const TOOL_TOKENS = [f("tool", "str"), f("tokens", "count")] as const;
const TOKENS_ITEMS = [f("tokens", "count"), f("items", "count")] as const;

export const BREAKDOWN_ITEM = [
  f("role", "str"),
  f("tool", "str", NULLABLE),
  f("target", "str"),
  f("tokens", "count"),
  f("handle", "str", NULLABLE),
] as const;

export const BREAKDOWN = [
  f("total_tokens", "count"),
  f("estimated_tokens", "count"),
  oneOf("source", ["sdk", "estimate"]),
  f("messages", "count"),
  { key: "categories", kind: "counts", keys: BREAKDOWN_CATEGORIES },
  maps("tool_results_by_tool", TOOL_TOKENS),
  maps("tool_definitions_by_tool", TOOL_TOKENS),
  maps("largest", BREAKDOWN_ITEM),
  map("removed", [map("aged_offload", TOKENS_ITEMS), map("smart_trim", TOKENS_ITEMS, { nullable: true, absent: "null" })]),
  map("headroom", [f("to_checkpoint", "int"), f("to_compaction", "int", NULLABLE)]),
  map(
    "cache_reuse",
    [
      f("percent", "count"),
      f("prompt_tokens", "count"),
      f("cause", "str", NULLABLE),
      // absent in checkpoints written before it (their estimate was Anthropic's); an unknown value is dropped
      { ...oneOf("rules", ["anthropic", "openai"]), optional: true, drop: true },
    ],
    OPTIONAL_OR_NULL,
  ),
] as const;

export const TOKEN_USAGE = [f("input_tokens", "count"), f("context_window", "count"), f("utilization", "ratio")] as const;

export const META = [
  f("checkpoint_id", "id"),
  f("session_key", "str"),
  // additive: absent in the first v1 files
  f("session_id", "str", { nullable: true, absent: "null" }),
  f("session_file", "str", NULLABLE),
  f("created_at", "time"),
  oneOf("trigger", CHECKPOINT_TRIGGERS),
  f("compaction_count", "count"),
  map("token_usage", TOKEN_USAGE),
  f("previous_checkpoint", "id", NULLABLE),
  f("channel", "str", NULLABLE),
  f("agent_id", "str", NULLABLE),
  map("breakdown", BREAKDOWN, OPTIONAL),
] as const;
export const META_FIELD = map("meta", META);

export const TOOL_FAILURE = [f("tool", "str"), f("target", "str"), f("error", "text"), f("when", "time")] as const;
export const LAST_TOOL_CALL = [f("name", "str"), f("params_summary", "text")] as const;

export const WORKING = [
  f("topic", "text"),
  oneOf("status", WORKING_STATUSES),
  f("interrupted", "bool"),
  map("last_tool_call", LAST_TOOL_CALL, NULLABLE),
  f("next_action", "text"),
] as const;

export const DECISION = [f("id", "str"), f("what", "text"), f("when", "time")] as const;
export const RESOURCES = [f("files_read", "strings"), f("files_modified", "strings"), f("tools_used", "strings")] as const;
export const KEY_EXCHANGE = [oneOf("role", ["user", "agent"]), f("gist", "text")] as const;

export const THREAD = [
  f("summary", "text"),
  maps("key_exchanges", KEY_EXCHANGE),
  // additive: absent in the first v1 files
  maps("errors", TOOL_FAILURE, { absent: "empty" }),
] as const;

export const WORKSPACE_FILE = [
  f("path", "str"),
  // present: a regular file; missing: no such path; other: not a regular file; unreadable: stat/read failed
  oneOf("state", ["present", "missing", "other", "unreadable"]),
  f("size", "count", NULLABLE),
  f("mtime_ms", "count", NULLABLE),
  f("hash", "str", { nullable: true, match: matching(/^sha1:[0-9a-f]{40}$/, "sha1:<40 hex>") }),
  oneOf("hash_scope", ["full", "sampled", "none"]), // how the content hash was taken
] as const;

export const WORKSPACE_GIT = [
  f("branch", "str", NULLABLE),
  f("head", "str", { nullable: true, match: matching(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "a commit id") }),
  f("dirty", "bool", NULLABLE),
] as const;

export const WORKSPACE = [
  f("cwd", "str"),
  maps("files", WORKSPACE_FILE),
  f("files_omitted", "count"),
  map("git", WORKSPACE_GIT, NULLABLE),
] as const;

export const WORK_FILE = [
  f("path", "str"),
  f("edits", "count"),
  f("writes", "count"),
  f("change", "text"),
  f("names", "texts", OPTIONAL),
  f("last", "time"),
  f("mentions", "count"),
  f("deleted", "bool", OPTIONAL),
] as const;

export const WORK_COMMAND = [
  f("family", "str"),
  f("command", "text"),
  f("runs", "count"),
  f("failures", "count"),
  f("ok", "bool"),
  f("exit", "count", NULLABLE),
  f("when", "time"),
] as const;

export const WORK_TURN = [f("request", "str"), f("outcome", "text"), f("names", "strings", OPTIONAL)] as const;

export const WORK_TASK = [
  f("tool", "str"),
  f("id", "str"),
  f("ask", "text"),
  f("outcome", "text"),
  f("ok", "bool", NULLABLE),
] as const;

export const WORK = [
  maps("files", WORK_FILE),
  maps("commands", WORK_COMMAND),
  maps("open_failures", TOOL_FAILURE),
  f("requests", "texts"),
  f("last_report", "text"),
  f("answered", "bool"),
  // issue 25: absent in checkpoints written before the turn log
  maps("turns", WORK_TURN, OPTIONAL),
  maps("tasks", WORK_TASK, OPTIONAL),
] as const;

const ARTIFACT_HANDLE: Match = { test: (s) => tryParseHandle(s) !== null, what: "ocm_artifact:v1:sha256:<64 lowercase hex>" };
const STATE_FILE: Match = { test: (s) => (STATE_FILE_NAMES as readonly string[]).includes(s), what: `one of ${STATE_FILE_NAMES.join("|")}` };

export const ARTIFACT_REF = [
  f("handle", "str", { match: ARTIFACT_HANDLE }),
  f("tool", "str"),
  f("target", "str"),
  f("lines", "str", { optional: true, match: matching(LINES_RE, 'a line range like "120-219" or "120-"') }),
  f("bytes", "count"),
] as const;

// set only on a checkpoint the NEXT session wrote from the state files of a session that ended before
// checkpointing them (issue 11, spec §7.3/§12); `meta.session_id` is the ended session
export const RECOVERED = [
  f("by_session_id", "str", NULLABLE),
  f("state_updated_at", "time"),
  f("files", "strings", { match: STATE_FILE }),
  f("files_modified_since_checkpoint", "strings", { absent: "empty" }),
] as const;

export const SUMMARY_COUNTS = [
  "decisions", "files_read", "files_modified", "tools_used", "errors", "open_items", "learnings",
] as const;

/** What `status` shows of a latest checkpoint: kept in the pointer (`_latest.json`) so `status` parses no YAML. */
export const CHECKPOINT_SUMMARY = [
  f("checkpoint_id", "id"),
  oneOf("trigger", CHECKPOINT_TRIGGERS),
  f("created_at", "str"),
  f("compaction_count", "count"),
  map("token_usage", TOKEN_USAGE),
  map("counts", SUMMARY_COUNTS.map((k) => f(k, "count"))),
  f("topic", "str"),
  oneOf("status", WORKING_STATUSES),
] as const;

/** Every field after `schema` and `schema_version`, in file order. */
export const CHECKPOINT_FIELDS = [
  META_FIELD,
  map("working", WORKING),
  maps("decisions", DECISION),
  map("resources", RESOURCES),
  map("thread", THREAD),
  f("open_items", "texts"),
  f("learnings", "texts"),
  map("workspace", WORKSPACE, OPTIONAL),
  map("work", WORK, OPTIONAL_OR_NULL),
  maps("artifacts", ARTIFACT_REF, { optional: true, max: 1000 }),
  map("recovered", RECOVERED, OPTIONAL_OR_NULL),
] as const;

type ScalarType = Record<"str" | "text" | "time" | "id", string> &
  Record<"count" | "ratio" | "int", number> &
  Record<"bool", boolean> &
  Record<"strings" | "texts", string[]>;
type Base<F> = F extends { kind: infer K extends Scalar }
  ? ScalarType[K]
  : F extends { kind: "enum"; values: readonly (infer V)[] }
    ? V
    : F extends { kind: "map"; fields: infer Fs }
      ? Shape<Fs>
      : F extends { kind: "maps"; fields: infer Fs }
        ? Shape<Fs>[]
        : F extends { kind: "counts"; keys: readonly (infer K extends string)[] }
          ? Partial<Record<K, number>>
          : never;
type ValueOf<F> = Base<F> | (F extends { nullable: true } ? null : never);
type KeyOf<F> = F extends { key: infer K extends string } ? K : never;
type Optional = { optional: true | "or-null" };
type Flat<T> = { [K in keyof T]: T[K] };

/** The object a field list describes (an optional field is an optional key), as validate.ts returns it. */
export type Shape<Fs> = Fs extends readonly unknown[]
  ? Flat<
      { [F in Fs[number] as F extends Optional ? never : KeyOf<F>]: ValueOf<F> } & {
        [F in Fs[number] as F extends Optional ? KeyOf<F> : never]?: ValueOf<F>;
      }
    >
  : never;

export type CheckpointTrigger = (typeof CHECKPOINT_TRIGGERS)[number];
export type WorkingStatus = (typeof WORKING_STATUSES)[number];
export type BreakdownCategory = (typeof BREAKDOWN_CATEGORIES)[number];

export type CheckpointMeta = Shape<typeof META>;
/** What a request holds, by category, in tokens (issue 27); `categories` sum to `total_tokens`. */
export type ContextBreakdown = Shape<typeof BREAKDOWN>;
/** One of the largest items of a request (a message, or the system prompt / tool definitions). */
export type BreakdownItem = Shape<typeof BREAKDOWN_ITEM>;
export type LastToolCall = Shape<typeof LAST_TOOL_CALL>;
export type Decision = Shape<typeof DECISION>;
export type Resources = Shape<typeof RESOURCES>;
export type KeyExchange = Shape<typeof KEY_EXCHANGE>;
export type ToolFailure = Shape<typeof TOOL_FAILURE>;
export type Thread = Shape<typeof THREAD>;
/** The work ledger (issue 10): what the session did mechanically, whole session. */
export type WorkLedger = Shape<typeof WORK>;
export type WorkFile = Shape<typeof WORK_FILE>;
export type WorkCommand = Shape<typeof WORK_COMMAND>;
/** One turn (issue 25): a user request and the agent's own last text of that turn. */
export type WorkTurn = Shape<typeof WORK_TURN>;
/** One sub-agent / task tool call (issue 25): what was asked of it and what came back. */
export type WorkTask = Shape<typeof WORK_TASK>;
/** The workspace when the checkpoint was written (issue 17): facts read from disk, never captured text. */
export type WorkspaceSnapshot = Shape<typeof WORKSPACE>;
export type WorkspaceFile = Shape<typeof WORKSPACE_FILE>;
export type WorkspaceGit = Shape<typeof WORKSPACE_GIT>;
export type CheckpointSummary = Shape<typeof CHECKPOINT_SUMMARY>;
/** A stored tool output the checkpoint points at (issue 15). */
export type ArtifactRef = Shape<typeof ARTIFACT_REF>;

export type Checkpoint = {
  schema: typeof CHECKPOINT_SCHEMA;
  schema_version: typeof CHECKPOINT_SCHEMA_VERSION;
} & Shape<typeof CHECKPOINT_FIELDS>;

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
