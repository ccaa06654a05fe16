/**
 * The checkpoint's fields (spec §5.3, docs/checkpoint-schema.md) as one table, in file order:
 * validate.ts reads a checkpoint by it and emit.ts writes one by it, so the two cannot disagree
 * on a field. A field's kind says how it is checked and how it is written:
 * - "str" (ids, paths, names), "time" (ISO-8601), "id" (checkpoint id), "enum": quoted scalars;
 * - "text": free text, a block literal where that is exact (emit.ts);
 * - "count" (integer >= 0), "ratio" (finite >= 0), "int" (any integer), "bool": plain;
 * - "strings" / "texts": lists of quoted scalars / of free text;
 * - "map" / "maps": a mapping / a list of mappings of `fields`;
 * - "counts": a mapping of numbers under fixed `keys`, in their order (`{}` when none; other keys ignored).
 * `nullable`: null allowed; `optional`: absent allowed ("or-null": a null mapping reads as absent too);
 * `absent`: what a missing field reads as; `match`: what a string (or each string of a list) must be;
 * `max`: the most entries of a list; `drop`: an invalid value reads as absent instead of failing.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import { BREAKDOWN_CATEGORIES, CHECKPOINT_TRIGGERS, FILE_STATES, HASH_SCOPES, STATE_FILE_NAMES, WORKING_STATUSES } from "./schema.js";

type Scalar = "str" | "text" | "time" | "id" | "count" | "ratio" | "int" | "bool" | "strings" | "texts";

/** A string's constraint and how an error names it ("expected <what>"). */
export interface Match {
  test(s: string): boolean;
  what: string;
}

interface Common {
  key: string;
  nullable?: true;
  optional?: true | "or-null";
  absent?: "null" | "empty";
  match?: Match;
  max?: number;
  drop?: true;
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
const OPTIONAL_OR_NULL = { optional: "or-null" } as const;

/** what a checkpoint may hold in `artifacts[].lines` (it is printed unquoted in the restore block) */
export const LINES_RE = /^\d{1,9}-(?:\d{1,9})?$/;
const matching = (re: RegExp, what: string): Match => ({ test: (s) => re.test(s), what });

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
  ],
  OPTIONAL,
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
      f("hash", "str", { nullable: true, match: matching(/^sha1:[0-9a-f]{40}$/, "sha1:<40 hex>") }),
      oneOf("hash_scope", HASH_SCOPES),
    ]),
    f("files_omitted", "count"),
    map(
      "git",
      [
        f("branch", "str", NULLABLE),
        f("head", "str", { nullable: true, match: matching(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "a commit id") }),
        f("dirty", "bool", NULLABLE),
      ],
      NULLABLE,
    ),
  ],
  OPTIONAL,
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
  OPTIONAL_OR_NULL,
);

const ARTIFACT_HANDLE: Match = { test: (s) => tryParseHandle(s) !== null, what: "ocm_artifact:v1:sha256:<64 lowercase hex>" };
const STATE_FILE: Match = { test: (s) => (STATE_FILE_NAMES as readonly string[]).includes(s), what: `one of ${STATE_FILE_NAMES.join("|")}` };

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
  maps(
    "artifacts",
    [
      f("handle", "str", { match: ARTIFACT_HANDLE }),
      f("tool", "str"),
      f("target", "str"),
      f("lines", "str", { optional: true, match: matching(LINES_RE, 'a line range like "120-219" or "120-"') }),
      f("bytes", "count"),
    ],
    { optional: true, max: 1000 },
  ),
  map(
    "recovered",
    [
      f("by_session_id", "str", NULLABLE),
      f("state_updated_at", "time"),
      f("files", "strings", { match: STATE_FILE }),
      f("files_modified_since_checkpoint", "strings", { absent: "empty" }),
    ],
    OPTIONAL_OR_NULL,
  ),
];
