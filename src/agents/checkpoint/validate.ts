/**
 * Schema validation: unknown data -> typed `Checkpoint`, or a `CheckpointError` naming the file
 * and the field path, by the field table (fields.ts). Every field and enum is checked; the
 * additive fields (`meta.session_id`, `thread.errors`...) default to null / [] when absent, optional
 * sections are left out when absent (files from writers that predate them). Unknown extra keys
 * are ignored (forward-compatible additions within v1).
 */
import { CHECKPOINT_SCHEMA, CHECKPOINT_SCHEMA_VERSION, type Checkpoint, type CheckpointMeta } from "./schema.js";
import { CheckpointError } from "./errors.js";
import { CHECKPOINT_FIELDS, type Field, type Match, META_FIELD } from "./fields.js";
import { parseCheckpointId } from "./ids.js";
import { redactSecrets } from "../text/redact.js";
import { visibleText } from "../text/visible.js";

/** ISO-8601 date-time with seconds and an explicit zone, as produced by Date#toISOString. */
const ISO_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

type Obj = Record<string, unknown>;

class Reader {
  constructor(readonly file: string) {}

  fail(field: string | undefined, detail: string): never {
    throw new CheckpointError(this.file, field, detail);
  }

  describe(v: unknown): string {
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

  obj(parent: Obj, key: string, field: string): Obj {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(field, `expected a mapping, got ${this.describe(v)}`);
    return v as Obj;
  }

  list(parent: Obj, key: string, field: string): unknown[] {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
    if (!Array.isArray(v)) this.fail(field, `expected a list, got ${this.describe(v)}`);
    return v;
  }

  itemObj(v: unknown, field: string): Obj {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(field, `expected a mapping, got ${this.describe(v)}`);
    return v as Obj;
  }

  str(parent: Obj, key: string, field: string): string {
    const v = parent[key];
    if (typeof v !== "string") this.fail(field, `expected a string, got ${this.describe(v)}`);
    return v;
  }

  strItem(v: unknown, field: string): string {
    if (typeof v !== "string") this.fail(field, `expected a string, got ${this.describe(v)}`);
    return v;
  }

  bool(parent: Obj, key: string, field: string): boolean {
    const v = parent[key];
    if (typeof v !== "boolean") this.fail(field, `expected true or false, got ${this.describe(v)}`);
    return v;
  }

  count(parent: Obj, key: string, field: string): number {
    const v = parent[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) this.fail(field, `expected a non-negative integer, got ${this.describe(v)}`);
    return v;
  }

  ratio(parent: Obj, key: string, field: string): number {
    const v = parent[key];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) this.fail(field, `expected a finite number >= 0, got ${this.describe(v)}`);
    return v;
  }

  oneOf<T extends string>(parent: Obj, key: string, field: string, allowed: readonly T[]): T {
    const v = parent[key];
    if (typeof v !== "string" || !(allowed as readonly string[]).includes(v)) {
      this.fail(field, `expected one of ${allowed.join("|")}, got ${this.describe(v)}`);
    }
    return v as T;
  }

  timestamp(parent: Obj, key: string, field: string): string {
    const v = this.str(parent, key, field);
    if (!ISO_DATE_TIME_RE.test(v) || Number.isNaN(Date.parse(v))) this.fail(field, `expected an ISO-8601 date-time like 2026-02-24T15:30:00Z, got ${this.describe(v)}`);
    return v;
  }

  int(parent: Obj, key: string, field: string): number {
    const v = parent[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v)) this.fail(field, `expected an integer, got ${this.describe(v)}`);
    return v;
  }

  matching(s: string, field: string, m: Match): string {
    if (!m.test(s)) this.fail(field, `expected ${m.what}, got ${this.describe(s)}`);
    return s;
  }

  checkpointId(parent: Obj, key: string, field: string, nullable: boolean): string | null {
    const v = parent[key];
    if (nullable && v === null) return null;
    const s = this.str(parent, key, field);
    if (parseCheckpointId(s) === null) this.fail(field, `expected a checkpoint id like cp_001, got ${this.describe(s)}`);
    return s;
  }
}

/** One field of `parent` by its entry in the table; `path` names it in errors. */
function readField(r: Reader, parent: Obj, f: Field, path: string): unknown {
  const v = parent[f.key];
  if (v === undefined && f.absent) return f.absent === "null" ? null : [];
  if (f.nullable && v === null) return null;
  switch (f.kind) {
    case "str":
    case "text":
      return f.match ? r.matching(r.str(parent, f.key, path), path, f.match) : r.str(parent, f.key, path);
    case "time":
      return r.timestamp(parent, f.key, path);
    case "id":
      return r.checkpointId(parent, f.key, path, false);
    case "enum":
      return r.oneOf(parent, f.key, path, f.values);
    case "count":
      return r.count(parent, f.key, path);
    case "ratio":
      return r.ratio(parent, f.key, path);
    case "int":
      return r.int(parent, f.key, path);
    case "bool":
      return r.bool(parent, f.key, path);
    case "strings":
    case "texts":
      return r.list(parent, f.key, path).map((item, i) => {
        const s = r.strItem(item, `${path}[${i}]`);
        return f.match ? r.matching(s, `${path}[${i}]`, f.match) : s;
      });
    case "map":
      return readFields(r, r.obj(parent, f.key, path), f.fields, path);
    case "maps": {
      const items = r.list(parent, f.key, path);
      if (f.max !== undefined && items.length > f.max) r.fail(path, `more than ${f.max} entries`);
      return items.map((item, i) => readFields(r, r.itemObj(item, `${path}[${i}]`), f.fields, `${path}[${i}]`));
    }
    case "counts": {
      // unknown keys are ignored (room for more categories within v1)
      const o = r.obj(parent, f.key, path);
      const out: Obj = {};
      for (const k of f.keys) if (o[k] !== undefined) out[k] = r.count(o, k, `${path}.${k}`);
      return out;
    }
  }
}

function plainValid(f: Field, v: unknown): boolean {
  if (v === null) return f.nullable === true;
  if (f.kind === "str" || f.kind === "text") return typeof v === "string" && f.match === undefined;
  if (f.kind === "count") return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  return f.kind === "bool" && typeof v === "boolean";
}

/** The fields of mapping `o` (at `path`), in table order; optional ones only when present. */
function readFields(r: Reader, o: Obj, fields: readonly Field[], path: string): Obj {
  const out: Obj = {};
  for (const f of fields) {
    const v = o[f.key];
    if (f.optional && (v === undefined || (f.optional === "or-null" && v === null))) continue;
    // a valid scalar is taken without building its path (every write validates: this is the hot loop)
    if (plainValid(f, v)) {
      out[f.key] = v;
      continue;
    }
    if (f.drop) {
      try {
        out[f.key] = readField(r, o, f, "");
      } catch {
        // an invalid value of a field the reader may drop: left out
      }
      continue;
    }
    out[f.key] = readField(r, o, f, path ? `${path}.${f.key}` : f.key);
  }
  return out;
}

/** The top level checked as a schema v1 mapping (schema and version), with its reader. */
function readHead(data: unknown, file: string): { r: Reader; root: Obj } {
  const r = new Reader(file);
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    r.fail(undefined, `expected a mapping at the top level, got ${r.describe(data)}`);
  }
  const root = data as Obj;
  if (root.schema !== CHECKPOINT_SCHEMA) r.fail("schema", `expected "${CHECKPOINT_SCHEMA}", got ${r.describe(root.schema)}`);
  if (root.schema_version !== CHECKPOINT_SCHEMA_VERSION) {
    r.fail("schema_version", `unsupported version ${r.describe(root.schema_version)} (this reader supports ${CHECKPOINT_SCHEMA_VERSION})`);
  }
  return { r, root };
}

/** Validate already-parsed data (YAML -> JS) as a schema v1 checkpoint. */
export function validateCheckpoint(data: unknown, file: string): Checkpoint {
  const { r, root } = readHead(data, file);
  const fields = readFields(r, root, CHECKPOINT_FIELDS, "");
  return { schema: CHECKPOINT_SCHEMA, schema_version: CHECKPOINT_SCHEMA_VERSION, ...fields } as Checkpoint;
}

/** Validate only what `list`/`status` read: schema, version and the `meta` block. */
export function validateCheckpointMeta(data: unknown, file: string): CheckpointMeta {
  const { r, root } = readHead(data, file);
  return readField(r, root, META_FIELD, "meta") as CheckpointMeta;
}
