/**
 * Unknown data -> typed `Checkpoint` by the field table (schema.ts), or a `CheckpointError` naming
 * the file and the field path. Unknown extra keys are ignored (additions within v1).
 */
import { CheckpointError } from "./errors.js";
import type { Checkpoint, CheckpointMeta, Field, Match, Shape } from "./schema.js";
import { CHECKPOINT_FIELDS, CHECKPOINT_SCHEMA, CHECKPOINT_SCHEMA_VERSION, META_FIELD } from "./schema.js";
import { parseCheckpointId } from "./ids.js";
import { redactSecrets } from "../text/redact.js";
import { visibleText } from "../text/visible.js";

/** ISO-8601 date-time with seconds and an explicit zone, as produced by Date#toISOString. */
const ISO_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const TIME: Match = {
  test: (s) => ISO_DATE_TIME_RE.test(s) && !Number.isNaN(Date.parse(s)),
  what: "an ISO-8601 date-time like 2026-02-24T15:30:00Z",
};
const ID: Match = { test: (s) => parseCheckpointId(s) !== null, what: "a checkpoint id like cp_001" };

type Obj = Record<string, unknown>;

const isNumber = (v: unknown): v is number => typeof v === "number";
/** What each plain kind accepts, and how an error names it ("expected <what>"). */
const PLAIN: Record<"count" | "ratio" | "int" | "bool", [test: (v: unknown) => boolean, what: string]> = {
  count: [(v) => isNumber(v) && Number.isSafeInteger(v) && v >= 0, "a non-negative integer"],
  ratio: [(v) => isNumber(v) && Number.isFinite(v) && v >= 0, "a finite number >= 0"],
  int: [(v) => isNumber(v) && Number.isSafeInteger(v), "an integer"],
  bool: [(v) => typeof v === "boolean", "true or false"],
};
const CONTAINERS = new Set<Field["kind"]>(["strings", "texts", "map", "maps", "counts"]);

/** The field at fault; the entry points below add the file. */
class FieldError {
  constructor(
    readonly field: string | undefined,
    readonly detail: string,
  ) {}
}
const fail = (field: string | undefined, detail: string): never => {
  throw new FieldError(field, detail);
};

function describe(v: unknown): string {
  if (v === undefined) return "nothing"; // a missing scalar: "expected a string, got nothing"
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") {
    // the value quoted in an error (logs, CLI) may be a secret or hold invisible text: redacted
    // and made visible BEFORE the cut, as the restore block does
    const s = redactSecrets(visibleText(redactSecrets(v)));
    return `string ${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)}`;
  }
  return `${typeof v} ${String(v)}`;
}

function check<T>(v: unknown, field: string, ok: boolean, what: string): T {
  if (!ok) fail(field, `expected ${what}, got ${describe(v)}`);
  return v as T;
}

const plain = (kind: keyof typeof PLAIN, v: unknown, field: string): unknown => check(v, field, PLAIN[kind][0](v), PLAIN[kind][1]);
const list = (v: unknown, field: string): unknown[] => check(v, field, Array.isArray(v), "a list");
const isMapping = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
const mapping = (v: unknown, field: string): Obj => check(v, field, isMapping(v), "a mapping");

function str(v: unknown, field: string, m?: Match): string {
  const s = check<string>(v, field, typeof v === "string", "a string");
  return m ? check(s, field, m.test(s), m.what) : s;
}

/** One field of `parent` by its entry in the table; `path` names it in errors. */
function readField(parent: Obj, f: Field, path: string): unknown {
  const v = parent[f.key];
  if (v === undefined && f.absent) return f.absent === "null" ? null : [];
  if (f.nullable && v === null) return null;
  // a missing scalar reads "expected ..., got nothing"
  if (v === undefined && CONTAINERS.has(f.kind)) fail(path, "missing");
  switch (f.kind) {
    case "str":
    case "text":
    case "time":
    case "id":
      return str(v, path, f.kind === "time" ? TIME : f.kind === "id" ? ID : f.match);
    case "enum":
      return check(v, path, typeof v === "string" && f.values.includes(v), `one of ${f.values.join("|")}`);
    case "strings":
    case "texts":
      return list(v, path).map((item, i) => str(item, `${path}[${i}]`, f.match));
    case "map":
      return readFields(mapping(v, path), f.fields, path);
    case "maps": {
      const items = list(v, path);
      if (f.max !== undefined && items.length > f.max) fail(path, `more than ${f.max} entries`);
      return items.map((item, i) => readFields(mapping(item, `${path}[${i}]`), f.fields, `${path}[${i}]`));
    }
    case "counts": {
      // unknown keys are ignored (room for more categories within v1)
      const o = mapping(v, path);
      const out: Obj = {};
      for (const k of f.keys) if (o[k] !== undefined) out[k] = plain("count", o[k], `${path}.${k}`);
      return out;
    }
    default:
      return plain(f.kind, v, path);
  }
}

function plainValid(f: Field, v: unknown): boolean {
  if (v === null) return f.nullable === true;
  if (f.kind === "str" || f.kind === "text") return typeof v === "string" && f.match === undefined;
  return (f.kind === "count" || f.kind === "bool") && PLAIN[f.kind][0](v);
}

/** The fields of mapping `o` (at `path`), in table order; optional ones only when present. */
function readFields(o: Obj, fields: readonly Field[], path: string): Obj {
  const out: Obj = {};
  for (const f of fields) {
    const v = o[f.key];
    if (f.optional && (v === undefined || (f.optional === "or-null" && v === null))) continue;
    // a valid scalar is taken without building its path (every write validates: this is the hot loop)
    if (plainValid(f, v)) out[f.key] = v;
    else if (!f.drop) out[f.key] = readField(o, f, path ? `${path}.${f.key}` : f.key);
    else {
      try {
        out[f.key] = readField(o, f, "");
      } catch {
        // an invalid value of a field the reader may drop: left out
      }
    }
  }
  return out;
}

/** `read` of a schema v1 mapping (schema and version checked), a FieldError naming `file`. */
function readFile<T>(data: unknown, file: string, read: (root: Obj) => T): T {
  try {
    if (!isMapping(data)) fail(undefined, `expected a mapping at the top level, got ${describe(data)}`);
    const root = data as Obj;
    if (root.schema !== CHECKPOINT_SCHEMA) fail("schema", `expected "${CHECKPOINT_SCHEMA}", got ${describe(root.schema)}`);
    if (root.schema_version !== CHECKPOINT_SCHEMA_VERSION) {
      const supported = `(this reader supports ${CHECKPOINT_SCHEMA_VERSION})`;
      fail("schema_version", `unsupported version ${describe(root.schema_version)} ${supported}`);
    }
    return read(root);
  } catch (err) {
    throw err instanceof FieldError ? new CheckpointError(file, err.field, err.detail) : err;
  }
}

/** Validate already-parsed data (YAML -> JS) as a schema v1 checkpoint. */
export function validateCheckpoint(data: unknown, file: string): Checkpoint {
  return readFile(data, file, (root) => {
    const fields = readFields(root, CHECKPOINT_FIELDS, "");
    return { schema: CHECKPOINT_SCHEMA, schema_version: CHECKPOINT_SCHEMA_VERSION, ...fields } as Checkpoint;
  });
}

/** Validate only what `list`/`status` read: schema, version and the `meta` block. */
export function validateCheckpointMeta(data: unknown, file: string): CheckpointMeta {
  return readFile(data, file, (root) => readField(root, META_FIELD, "meta") as CheckpointMeta);
}

/** `data` read by the field list `fields`, or null when it does not fit (a hint such as the pointer's summary). */
export function readShape<const Fs extends readonly Field[]>(data: unknown, fields: Fs): Shape<Fs> | null {
  try {
    return readFields(mapping(data, ""), fields, "") as Shape<Fs>;
  } catch {
    return null;
  }
}
