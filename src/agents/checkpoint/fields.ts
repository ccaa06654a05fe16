/**
 * The checkpoint's fields (spec §5.3, docs/checkpoint-schema.md) as one table, in file order:
 * validate.ts reads a checkpoint by it and emit.ts writes one by it, so the two cannot disagree
 * on a field. A field's kind says how it is checked and how it is written:
 * - "str" (ids, paths, names), "time" (ISO-8601), "id" (checkpoint id), "enum": quoted scalars;
 * - "text": free text, a block literal where that is exact (emit.ts);
 * - "count" (integer >= 0), "ratio" (finite >= 0), "num" (any finite; its block has a reader), "bool": plain;
 * - "strings" / "texts": lists of quoted scalars / of free text;
 * - "map" / "maps": a mapping / a list of mappings of `fields`;
 * - "counts": a mapping of numbers under fixed `keys`, in their order (`{}` when none).
 * `nullable`: null allowed; `optional`: absent allowed (a mapping also when null); `absent`: what a
 * missing field reads as. `read`: a block with its own validator (its own messages), which the
 * table then only lays out.
 */
import { validateArtifactRefs } from "./validate-artifacts.js";
import { validateBreakdown } from "./validate-breakdown.js";
import { validateRecovered } from "./recovered.js";
import { validateWorkspace } from "./validate-workspace.js";
import { BREAKDOWN_CATEGORIES, CHECKPOINT_TRIGGERS, FILE_STATES, HASH_SCOPES, WORKING_STATUSES } from "./schema.js";

type Scalar = "str" | "text" | "time" | "id" | "count" | "ratio" | "num" | "bool" | "strings" | "texts";

interface Common {
  key: string;
  nullable?: true;
  optional?: true;
  absent?: "null" | "empty";
  read?: (parent: Record<string, unknown>, file: string) => unknown;
}

export type Field = Common &
  (
    | { kind: Scalar }
    | { kind: "enum"; values: readonly string[] }
    | { kind: "map" | "maps"; fields: readonly Field[] }
    | { kind: "counts"; keys: readonly string[] }
  );

const f = (key: string, kind: Scalar, flags: Omit<Common, "key"> = {}): Field => ({ key, kind, ...flags });
const oneOf = (key: string, values: readonly string[]): Field => ({ key, kind: "enum", values });
const map = (key: string, fields: readonly Field[], flags: Omit<Common, "key"> = {}): Field => ({ key, kind: "map", fields, ...flags });
const maps = (key: string, fields: readonly Field[], flags: Omit<Common, "key"> = {}): Field => ({ key, kind: "maps", fields, ...flags });
const NULLABLE = { nullable: true } as const;
const OPTIONAL = { optional: true } as const;

const TOOL_TOKENS = [f("tool", "str"), f("tokens", "count")];
const TOKENS_ITEMS = [f("tokens", "count"), f("items", "count")];

const BREAKDOWN = map(
  "breakdown",
  [
    f("total_tokens", "count"),
    f("estimated_tokens", "count"),
    oneOf("source", ["sdk", "estimate"]),
    f("messages", "count"),
    { key: "categories", kind: "counts", keys: BREAKDOWN_CATEGORIES },
    maps("tool_results_by_tool", TOOL_TOKENS),
    maps("tool_definitions_by_tool", TOOL_TOKENS),
    maps("largest", [f("role", "str"), f("tool", "str", NULLABLE), f("target", "str"), f("tokens", "count"), f("handle", "str", NULLABLE)]),
    map("removed", [map("aged_offload", TOKENS_ITEMS), map("smart_trim", TOKENS_ITEMS, NULLABLE)]),
    map("headroom", [f("to_checkpoint", "num"), f("to_compaction", "num", NULLABLE)]),
    map(
      "cache_reuse",
      [f("percent", "count"), f("prompt_tokens", "count"), f("cause", "str", NULLABLE), oneOf("rules", ["anthropic", "openai"])],
      OPTIONAL,
    ),
  ],
  { read: validateBreakdown },
);

export const META_FIELD = map("meta", [
  f("checkpoint_id", "id"),
  f("session_key", "str"),
  // additive: absent in the first v1 files
  f("session_id", "str", { nullable: true, absent: "null" }),
  f("session_file", "str", NULLABLE),
  f("created_at", "time"),
  oneOf("trigger", CHECKPOINT_TRIGGERS),
  f("compaction_count", "count"),
  map("token_usage", [f("input_tokens", "count"), f("context_window", "count"), f("utilization", "ratio")]),
  f("previous_checkpoint", "id", NULLABLE),
  f("channel", "str", NULLABLE),
  f("agent_id", "str", NULLABLE),
  BREAKDOWN,
]);

const TOOL_FAILURE = [f("tool", "str"), f("target", "str"), f("error", "text"), f("when", "time")];

const WORKSPACE = map(
  "workspace",
  [
    f("cwd", "str"),
    maps("files", [
      f("path", "str"),
      oneOf("state", FILE_STATES),
      f("size", "count", NULLABLE),
      f("mtime_ms", "count", NULLABLE),
      f("hash", "str", NULLABLE),
      oneOf("hash_scope", HASH_SCOPES),
    ]),
    f("files_omitted", "count"),
    map("git", [f("branch", "str", NULLABLE), f("head", "str", NULLABLE), f("dirty", "bool", NULLABLE)], NULLABLE),
  ],
  { read: validateWorkspace },
);

const WORK = map(
  "work",
  [
    maps("files", [
      f("path", "str"),
      f("edits", "count"),
      f("writes", "count"),
      f("change", "text"),
      f("names", "texts", OPTIONAL),
      f("last", "time"),
      f("mentions", "count"),
      f("deleted", "bool", OPTIONAL),
    ]),
    maps("commands", [
      f("family", "str"),
      f("command", "text"),
      f("runs", "count"),
      f("failures", "count"),
      f("ok", "bool"),
      f("exit", "count", NULLABLE),
      f("when", "time"),
    ]),
    maps("open_failures", TOOL_FAILURE),
    f("requests", "texts"),
    f("last_report", "text"),
    f("answered", "bool"),
    // issue 25: absent in checkpoints written before the turn log
    maps("turns", [f("request", "str"), f("outcome", "text"), f("names", "strings", OPTIONAL)], OPTIONAL),
    maps("tasks", [f("tool", "str"), f("id", "str"), f("ask", "text"), f("outcome", "text"), f("ok", "bool", NULLABLE)], OPTIONAL),
  ],
  OPTIONAL,
);

/** Every field after `schema` and `schema_version`, in file order. */
export const CHECKPOINT_FIELDS: readonly Field[] = [
  META_FIELD,
  map("working", [
    f("topic", "text"),
    oneOf("status", WORKING_STATUSES),
    f("interrupted", "bool"),
    map("last_tool_call", [f("name", "str"), f("params_summary", "text")], NULLABLE),
    f("next_action", "text"),
  ]),
  maps("decisions", [f("id", "str"), f("what", "text"), f("when", "time")]),
  map("resources", [f("files_read", "strings"), f("files_modified", "strings"), f("tools_used", "strings")]),
  map("thread", [
    f("summary", "text"),
    maps("key_exchanges", [oneOf("role", ["user", "agent"]), f("gist", "text")]),
    // additive: absent in the first v1 files
    maps("errors", TOOL_FAILURE, { absent: "empty" }),
  ]),
  f("open_items", "texts"),
  f("learnings", "texts"),
  WORKSPACE,
  WORK,
  maps("artifacts", [f("handle", "str"), f("tool", "str"), f("target", "str"), f("lines", "str", OPTIONAL), f("bytes", "count")], {
    read: validateArtifactRefs,
  }),
  map(
    "recovered",
    [f("by_session_id", "str", NULLABLE), f("state_updated_at", "time"), f("files", "strings"), f("files_modified_since_checkpoint", "strings")],
    { read: validateRecovered },
  ),
];
