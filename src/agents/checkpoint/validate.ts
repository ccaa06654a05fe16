/**
 * Schema validation: unknown data -> typed `Checkpoint`, or a `CheckpointError` naming the file
 * and the field path. Every field and enum is checked; the two additive fields
 * (`meta.session_id`, `thread.errors`) default to null / [] when absent, the optional `work`
 * section is left out when absent (files from writers that
 * predate them). Unknown extra keys are ignored (forward-compatible additions within v1).
 */
import {
  CHECKPOINT_SCHEMA,
  CHECKPOINT_SCHEMA_VERSION,
  CHECKPOINT_TRIGGERS,
  WORKING_STATUSES,
  type Checkpoint,
  type CheckpointMeta,
  type Decision,
  type KeyExchange,
  type LastToolCall,
  type Resources,
  type Thread,
  type TokenUsage,
  type ToolFailure,
  type WorkingState,
  type WorkCommand,
  type WorkFile,
  type WorkTask,
  type WorkTurn,
  type WorkLedger,
} from "./schema.js";
import { CheckpointError } from "./errors.js";
import { parseCheckpointId } from "./ids.js";
import { validateWorkspace } from "./validate-workspace.js";
import { validateBreakdown } from "./validate-breakdown.js";
import { validateArtifactRefs } from "./validate-artifacts.js";
import { validateRecovered } from "./recovered.js";
import { redactSecrets } from "../text/redact.js";
import { visibleText } from "../text/visible.js";

const EXCHANGE_ROLES = ["user", "agent"] as const;
/** ISO-8601 date-time with seconds and an explicit zone, as produced by Date#toISOString. */
const ISO_DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

type Obj = Record<string, unknown>;

class Reader {
  constructor(readonly file: string) {}

  fail(field: string | undefined, detail: string): never {
    throw new CheckpointError(this.file, field, detail);
  }

  describe(v: unknown): string {
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
    if (v === undefined) this.fail(field, "missing");
    if (typeof v !== "string") this.fail(field, `expected a string, got ${this.describe(v)}`);
    return v;
  }

  strItem(v: unknown, field: string): string {
    if (typeof v !== "string") this.fail(field, `expected a string, got ${this.describe(v)}`);
    return v;
  }

  nullableStr(parent: Obj, key: string, field: string, optional = false): string | null {
    const v = parent[key];
    if (v === undefined && optional) return null;
    if (v === null) return null;
    return this.str(parent, key, field);
  }

  bool(parent: Obj, key: string, field: string): boolean {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
    if (typeof v !== "boolean") this.fail(field, `expected true or false, got ${this.describe(v)}`);
    return v;
  }

  count(parent: Obj, key: string, field: string): number {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) this.fail(field, `expected a non-negative integer, got ${this.describe(v)}`);
    return v;
  }

  ratio(parent: Obj, key: string, field: string): number {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) this.fail(field, `expected a finite number >= 0, got ${this.describe(v)}`);
    return v;
  }

  oneOf<T extends string>(parent: Obj, key: string, field: string, allowed: readonly T[]): T {
    const v = parent[key];
    if (v === undefined) this.fail(field, "missing");
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

  checkpointId(parent: Obj, key: string, field: string, nullable: boolean): string | null {
    const v = parent[key];
    if (nullable && v === null) return null;
    const s = this.str(parent, key, field);
    if (parseCheckpointId(s) === null) this.fail(field, `expected a checkpoint id like cp_001, got ${this.describe(s)}`);
    return s;
  }
}

function readTokenUsage(r: Reader, meta: Obj): TokenUsage {
  const tu = r.obj(meta, "token_usage", "meta.token_usage");
  return {
    input_tokens: r.count(tu, "input_tokens", "meta.token_usage.input_tokens"),
    context_window: r.count(tu, "context_window", "meta.token_usage.context_window"),
    utilization: r.ratio(tu, "utilization", "meta.token_usage.utilization"),
  };
}

function readMeta(r: Reader, root: Obj): CheckpointMeta {
  const m = r.obj(root, "meta", "meta");
  const breakdown = validateBreakdown(m, r.file);
  return {
    checkpoint_id: r.checkpointId(m, "checkpoint_id", "meta.checkpoint_id", false) as string,
    session_key: r.str(m, "session_key", "meta.session_key"),
    session_id: r.nullableStr(m, "session_id", "meta.session_id", true),
    session_file: r.nullableStr(m, "session_file", "meta.session_file"),
    created_at: r.timestamp(m, "created_at", "meta.created_at"),
    trigger: r.oneOf(m, "trigger", "meta.trigger", CHECKPOINT_TRIGGERS),
    compaction_count: r.count(m, "compaction_count", "meta.compaction_count"),
    token_usage: readTokenUsage(r, m),
    previous_checkpoint: r.checkpointId(m, "previous_checkpoint", "meta.previous_checkpoint", true),
    channel: r.nullableStr(m, "channel", "meta.channel"),
    agent_id: r.nullableStr(m, "agent_id", "meta.agent_id"),
    ...(breakdown ? { breakdown } : {}),
  };
}

function readLastToolCall(r: Reader, w: Obj): LastToolCall | null {
  if (w.last_tool_call === null) return null;
  const c = r.obj(w, "last_tool_call", "working.last_tool_call");
  return {
    name: r.str(c, "name", "working.last_tool_call.name"),
    params_summary: r.str(c, "params_summary", "working.last_tool_call.params_summary"),
  };
}

function readWorking(r: Reader, root: Obj): WorkingState {
  const w = r.obj(root, "working", "working");
  return {
    topic: r.str(w, "topic", "working.topic"),
    status: r.oneOf(w, "status", "working.status", WORKING_STATUSES),
    interrupted: r.bool(w, "interrupted", "working.interrupted"),
    last_tool_call: readLastToolCall(r, w),
    next_action: r.str(w, "next_action", "working.next_action"),
  };
}

function readDecisions(r: Reader, root: Obj): Decision[] {
  return r.list(root, "decisions", "decisions").map((item, i) => {
    const f = `decisions[${i}]`;
    const d = r.itemObj(item, f);
    return { id: r.str(d, "id", `${f}.id`), what: r.str(d, "what", `${f}.what`), when: r.timestamp(d, "when", `${f}.when`) };
  });
}

function readStrings(r: Reader, parent: Obj, key: string, field: string): string[] {
  return r.list(parent, key, field).map((item, i) => r.strItem(item, `${field}[${i}]`));
}

function readResources(r: Reader, root: Obj): Resources {
  const res = r.obj(root, "resources", "resources");
  return {
    files_read: readStrings(r, res, "files_read", "resources.files_read"),
    files_modified: readStrings(r, res, "files_modified", "resources.files_modified"),
    tools_used: readStrings(r, res, "tools_used", "resources.tools_used"),
  };
}

function readThread(r: Reader, root: Obj): Thread {
  const t = r.obj(root, "thread", "thread");
  const key_exchanges: KeyExchange[] = r.list(t, "key_exchanges", "thread.key_exchanges").map((item, i) => {
    const f = `thread.key_exchanges[${i}]`;
    const e = r.itemObj(item, f);
    return { role: r.oneOf(e, "role", `${f}.role`, EXCHANGE_ROLES), gist: r.str(e, "gist", `${f}.gist`) };
  });
  const rawErrors = t.errors === undefined ? [] : r.list(t, "errors", "thread.errors");
  const errors: ToolFailure[] = rawErrors.map((item, i) => readToolFailure(r, item, `thread.errors[${i}]`));
  return { summary: r.str(t, "summary", "thread.summary"), key_exchanges, errors };
}

/** One failed tool call (`thread.errors[]`, `work.open_failures[]`). */
function readToolFailure(r: Reader, item: unknown, f: string): ToolFailure {
  const e = r.itemObj(item, f);
  return {
    tool: r.str(e, "tool", `${f}.tool`),
    target: r.str(e, "target", `${f}.target`),
    error: r.str(e, "error", `${f}.error`),
    when: r.timestamp(e, "when", `${f}.when`),
  };
}

function readWork(r: Reader, root: Obj): WorkLedger | undefined {
  if (root.work === undefined || root.work === null) return undefined;
  const w = r.obj(root, "work", "work");
  const files: WorkFile[] = r.list(w, "files", "work.files").map((item, i) => {
    const f = `work.files[${i}]`;
    const o = r.itemObj(item, f);
    return {
      path: r.str(o, "path", `${f}.path`),
      edits: r.count(o, "edits", `${f}.edits`),
      writes: r.count(o, "writes", `${f}.writes`),
      change: r.str(o, "change", `${f}.change`),
      last: r.timestamp(o, "last", `${f}.last`),
      mentions: r.count(o, "mentions", `${f}.mentions`),
      // optional: checkpoints written before names were kept have none
      ...(o.names === undefined ? {} : { names: readStrings(r, o, "names", `${f}.names`) }),
      // optional: only a removed file carries it
      ...(o.deleted === undefined ? {} : { deleted: r.bool(o, "deleted", `${f}.deleted`) }),
    };
  });
  const commands: WorkCommand[] = r.list(w, "commands", "work.commands").map((item, i) => {
    const f = `work.commands[${i}]`;
    const o = r.itemObj(item, f);
    const exit = o.exit === null ? null : r.count(o, "exit", `${f}.exit`);
    return {
      family: r.str(o, "family", `${f}.family`),
      command: r.str(o, "command", `${f}.command`),
      runs: r.count(o, "runs", `${f}.runs`),
      failures: r.count(o, "failures", `${f}.failures`),
      ok: r.bool(o, "ok", `${f}.ok`),
      exit,
      when: r.timestamp(o, "when", `${f}.when`),
    };
  });
  const open_failures: ToolFailure[] = r.list(w, "open_failures", "work.open_failures").map((item, i) => readToolFailure(r, item, `work.open_failures[${i}]`));
  return {
    files,
    commands,
    open_failures,
    requests: readStrings(r, w, "requests", "work.requests"),
    last_report: r.str(w, "last_report", "work.last_report"),
    answered: r.bool(w, "answered", "work.answered"),
    // optional (issue 25): absent in checkpoints written before the turn log
    ...(w.turns === undefined ? {} : { turns: readTurns(r, w) }),
    ...(w.tasks === undefined ? {} : { tasks: readTasks(r, w) }),
  };
}

function readTurns(r: Reader, w: Obj): WorkTurn[] {
  return r.list(w, "turns", "work.turns").map((item, i) => {
    const f = `work.turns[${i}]`;
    const o = r.itemObj(item, f);
    return {
      request: r.str(o, "request", `${f}.request`),
      outcome: r.str(o, "outcome", `${f}.outcome`),
      ...(o.names === undefined ? {} : { names: readStrings(r, o, "names", `${f}.names`) }),
    };
  });
}

function readTasks(r: Reader, w: Obj): WorkTask[] {
  return r.list(w, "tasks", "work.tasks").map((item, i) => {
    const f = `work.tasks[${i}]`;
    const o = r.itemObj(item, f);
    return {
      tool: r.str(o, "tool", `${f}.tool`),
      id: r.str(o, "id", `${f}.id`),
      ask: r.str(o, "ask", `${f}.ask`),
      outcome: r.str(o, "outcome", `${f}.outcome`),
      ok: o.ok === null ? null : r.bool(o, "ok", `${f}.ok`),
    };
  });
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
  const workspace = validateWorkspace(root, file);
  const artifacts = validateArtifactRefs(root, file);
  const cp: Checkpoint = {
    schema: CHECKPOINT_SCHEMA,
    schema_version: CHECKPOINT_SCHEMA_VERSION,
    meta: readMeta(r, root),
    working: readWorking(r, root),
    decisions: readDecisions(r, root),
    resources: readResources(r, root),
    thread: readThread(r, root),
    open_items: readStrings(r, root, "open_items", "open_items"),
    learnings: readStrings(r, root, "learnings", "learnings"),
    ...(workspace ? { workspace } : {}),
    ...(artifacts ? { artifacts } : {}),
  };
  const work = readWork(r, root);
  if (work) cp.work = work;
  const recovered = validateRecovered(root, file);
  if (recovered) cp.recovered = recovered;
  return cp;
}

/** Validate only what `list`/`status` read: schema, version and the `meta` block. */
export function validateCheckpointMeta(data: unknown, file: string): CheckpointMeta {
  const { r, root } = readHead(data, file);
  return readMeta(r, root);
}
