/**
 * Checkpoint <-> YAML text.
 * Writing (spec §5.1 safety rules): free-text fields are block literals (`|`) where a block
 * literal reproduces the string exactly, otherwise double-quoted scalars (CR, NUL and other
 * control characters, whitespace-only text...). Every other string (ids, keys, paths, tool names,
 * timestamps) is double-quoted, so no value can be read back as another type or inject structure.
 * Keys are fixed schema names, never user content. The output is parsed back and compared before
 * it is returned: a checkpoint that would not round-trip exactly is never written.
 * Strings are stored as UTF-8, so a lone UTF-16 surrogate (not valid Unicode) is stored as U+FFFD.
 * Reading: YAML errors, duplicate keys, multiple documents and aliases are rejected, then the
 * data is validated field by field.
 */
import { isDeepStrictEqual } from "node:util";
import { Document, Scalar, parseDocument, type Node } from "yaml";
import type { Checkpoint, WorkLedger } from "../context-checkpoint-schema.js";
import { CheckpointError } from "./errors.js";
import { wellFormed } from "./text.js";
import { validateCheckpoint } from "./validate.js";

const HEADER_COMMENT = " OpenClaw Checkpoint Schema v1";
const STRINGIFY_OPTIONS = { lineWidth: 0, minContentWidth: 0, indent: 2 } as const;

/** Characters a YAML block scalar may hold verbatim (YAML 1.2 c-printable minus CR and BOM). */
const BLOCK_SAFE_RE = /^[\t\n\x20-\x7E\xA0-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]+$/u;

type TextStyle = "block" | "quoted";

class NodeBuilder {
  constructor(
    private readonly doc: Document,
    private readonly textStyle: TextStyle,
  ) {}

  /** identifier-like string: always double-quoted */
  q(s: string): Scalar {
    const node = this.doc.createNode(wellFormed(s)) as Scalar;
    node.type = Scalar.QUOTE_DOUBLE;
    return node;
  }

  qOrNull(s: string | null): Scalar {
    return s === null ? (this.doc.createNode(null) as Scalar) : this.q(s);
  }

  /** free text: block literal when it reproduces the string, else double-quoted */
  text(s: string): Scalar {
    const value = wellFormed(s);
    const node = this.doc.createNode(value) as Scalar;
    node.type = this.textStyle === "block" && BLOCK_SAFE_RE.test(value) ? Scalar.BLOCK_LITERAL : Scalar.QUOTE_DOUBLE;
    return node;
  }

  plain(v: number | boolean | null): Node {
    return this.doc.createNode(v) as Node;
  }

  seq<T>(items: readonly T[], f: (item: T) => unknown): Node {
    return this.doc.createNode(items.map(f)) as Node;
  }

  map(entries: Record<string, unknown>): Node {
    return this.doc.createNode(entries) as Node;
  }
}

/** The optional `workspace` block (issue 17): paths and names quoted, numbers/booleans plain. */
function workspaceNode(b: NodeBuilder, w: NonNullable<Checkpoint["workspace"]>): Node {
  return b.map({
    cwd: b.q(w.cwd),
    files: b.seq(w.files, (f) =>
      b.map({
        path: b.q(f.path),
        state: b.q(f.state),
        size: b.plain(f.size),
        mtime_ms: b.plain(f.mtime_ms),
        hash: b.qOrNull(f.hash),
        hash_scope: b.q(f.hash_scope),
      }),
    ),
    files_omitted: b.plain(w.files_omitted),
    git: w.git === null ? b.plain(null) : b.map({ branch: b.qOrNull(w.git.branch), head: b.qOrNull(w.git.head), dirty: b.plain(w.git.dirty) }),
  });
}

function buildDocument(cp: Checkpoint, textStyle: TextStyle): Document {
  const doc = new Document();
  const b = new NodeBuilder(doc, textStyle);
  const m = cp.meta;
  const w = cp.working;
  doc.contents = b.map({
    schema: b.q(cp.schema),
    schema_version: b.plain(cp.schema_version),
    meta: b.map({
      checkpoint_id: b.q(m.checkpoint_id),
      session_key: b.q(m.session_key),
      session_id: b.qOrNull(m.session_id),
      session_file: b.qOrNull(m.session_file),
      created_at: b.q(m.created_at),
      trigger: b.q(m.trigger),
      compaction_count: b.plain(m.compaction_count),
      token_usage: b.map({
        input_tokens: b.plain(m.token_usage.input_tokens),
        context_window: b.plain(m.token_usage.context_window),
        utilization: b.plain(m.token_usage.utilization),
      }),
      previous_checkpoint: b.qOrNull(m.previous_checkpoint),
      channel: b.qOrNull(m.channel),
      agent_id: b.qOrNull(m.agent_id),
    }),
    working: b.map({
      topic: b.text(w.topic),
      status: b.q(w.status),
      interrupted: b.plain(w.interrupted),
      last_tool_call:
        w.last_tool_call === null
          ? b.plain(null)
          : b.map({ name: b.q(w.last_tool_call.name), params_summary: b.text(w.last_tool_call.params_summary) }),
      next_action: b.text(w.next_action),
    }),
    decisions: b.seq(cp.decisions, (d) => b.map({ id: b.q(d.id), what: b.text(d.what), when: b.q(d.when) })),
    resources: b.map({
      files_read: b.seq(cp.resources.files_read, (s) => b.q(s)),
      files_modified: b.seq(cp.resources.files_modified, (s) => b.q(s)),
      tools_used: b.seq(cp.resources.tools_used, (s) => b.q(s)),
    }),
    thread: b.map({
      summary: b.text(cp.thread.summary),
      key_exchanges: b.seq(cp.thread.key_exchanges, (e) => b.map({ role: b.q(e.role), gist: b.text(e.gist) })),
      errors: b.seq(cp.thread.errors, (e) => b.map({ tool: b.q(e.tool), target: b.q(e.target), error: b.text(e.error), when: b.q(e.when) })),
    }),
    open_items: b.seq(cp.open_items, (s) => b.text(s)),
    learnings: b.seq(cp.learnings, (s) => b.text(s)),
    ...(cp.workspace ? { workspace: workspaceNode(b, cp.workspace) } : {}),
    ...(cp.work ? { work: workNode(b, cp.work) } : {}),
    ...(cp.artifacts ? { artifacts: b.seq(cp.artifacts, (a) => b.map({ handle: b.q(a.handle), tool: b.q(a.tool), target: b.q(a.target), bytes: b.plain(a.bytes) })) } : {}),
  });
  doc.commentBefore = HEADER_COMMENT;
  return doc;
}

/** The optional work ledger (additive; omitted when absent). */
function workNode(b: NodeBuilder, w: WorkLedger): Node {
  return b.map({
    files: b.seq(w.files, (f) =>
      b.map({ path: b.q(f.path), edits: b.plain(f.edits), writes: b.plain(f.writes), change: b.text(f.change), last: b.q(f.last), mentions: b.plain(f.mentions) }),
    ),
    commands: b.seq(w.commands, (c) =>
      b.map({
        family: b.q(c.family),
        command: b.text(c.command),
        runs: b.plain(c.runs),
        failures: b.plain(c.failures),
        ok: b.plain(c.ok),
        exit: b.plain(c.exit),
        when: b.q(c.when),
      }),
    ),
    open_failures: b.seq(w.open_failures, (e) => b.map({ tool: b.q(e.tool), target: b.q(e.target), error: b.text(e.error), when: b.q(e.when) })),
    requests: b.seq(w.requests, (s) => b.text(s)),
    last_report: b.text(w.last_report),
    answered: b.plain(w.answered),
  });
}

/** Deep copy with every string made well-formed (what the file will actually hold). */
function normalizeStrings<T>(value: T): T {
  if (typeof value === "string") return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map(normalizeStrings) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeStrings(v)])) as T;
  }
  return value;
}

/**
 * Checkpoint -> YAML. Validates the checkpoint first (throws CheckpointError naming
 * `<checkpoint_id>.yaml` and the field) and guarantees `parseCheckpoint(result)` deep-equals it.
 */
export function serializeCheckpoint(cp: Checkpoint): string {
  return serializeCheckpointChecked(cp).text;
}

/** serializeCheckpoint plus the checkpoint exactly as a reader will get it back. */
export function serializeCheckpointChecked(cp: Checkpoint): { text: string; checkpoint: Checkpoint } {
  const label = `${typeof cp?.meta?.checkpoint_id === "string" ? cp.meta.checkpoint_id : "checkpoint"}.yaml`;
  const expected = normalizeStrings(validateCheckpoint(cp, label));
  for (const style of ["block", "quoted"] as const) {
    const text = buildDocument(expected, style).toString(STRINGIFY_OPTIONS);
    let back: Checkpoint | null = null;
    try {
      back = parseCheckpoint(text, label);
    } catch {
      back = null;
    }
    if (back && isDeepStrictEqual(back, expected)) return { text, checkpoint: back };
  }
  throw new CheckpointError(label, undefined, "internal error: YAML serialization does not round-trip");
}

/** YAML text -> validated Checkpoint; throws CheckpointError naming `file` and the field. */
export function parseCheckpoint(text: string, file: string): Checkpoint {
  if (text.trim() === "") throw new CheckpointError(file, undefined, "empty file");
  const doc = parseDocument(text, { uniqueKeys: true, strict: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) throw new CheckpointError(file, undefined, `invalid YAML: ${first.message.split("\n")[0]}`, { cause: first });
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    throw new CheckpointError(file, undefined, `invalid YAML: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return validateCheckpoint(data, file);
}
