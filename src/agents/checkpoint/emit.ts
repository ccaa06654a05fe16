/**
 * Checkpoint -> YAML text by direct emission (no YAML document model, no parse-back).
 *
 * Why this is exact without a runtime check: every value takes one of three forms whose
 * reading is fixed by the YAML 1.2 grammar, and `test/checkpoint/emit.test.ts` checks with
 * fast-check that the `yaml` parser reads back exactly what was emitted.
 *  - double-quoted: JSON's escaping (a subset of YAML's double-quoted escapes), plus `\uXXXX`
 *    for every character YAML does not allow raw in a quoted scalar or that a parser might
 *    take as a line break (DEL, C1 controls, NEL, U+2028/9, BOM, U+FFFE/F);
 *  - block literal `|-` for free text, only when the string is made of block-safe
 *    characters (no CR, control or format characters YAML would refuse or rewrite), starts
 *    with a character that is not white space (so the indentation is detected from the first
 *    line) and ends with one that is not white space (so strip chomping keeps every character);
 *  - plain `null`, `true`/`false`, and numbers (validated finite; non-negative except the
 *    breakdown's headroom; -0 as 0).
 * Keys are fixed schema names, never user content.
 */
import { BREAKDOWN_CATEGORIES, type Checkpoint, type ContextBreakdown, type ToolFailure } from "./schema.js";
import { wellFormed } from "./text.js";

export const HEADER_COMMENT = "# OpenClaw Checkpoint Schema v1";

/** Characters a YAML block literal holds verbatim: printable, no CR, no BOM, no NEL/U+2028/U+2029. */
const BLOCK_SAFE_RE = /^[\t\n\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]+$/u;
/** What JSON.stringify leaves raw but a YAML double-quoted scalar must escape. */
const QUOTE_EXTRA_RE = /[\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

const QUOTE_EXTRA_TEST = /[\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/;

/** printable ASCII but `"` and `\\`: quoted as it is, by JSON and YAML alike */
const PLAIN_QUOTABLE_RE = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** Double-quoted scalar for an already well-formed string. */
function quoted(s: string): string {
  // ids, paths, timestamps: no escape to find, so no three scans (a fifth of an emission)
  if (PLAIN_QUOTABLE_RE.test(s)) return `"${s}"`;
  let j = JSON.stringify(s);
  // most strings hold none of these: test before rewriting (the replaces were a tenth of an emission)
  if (QUOTE_EXTRA_TEST.test(j)) j = j.replace(QUOTE_EXTRA_RE, hex4);
  return j.includes("\\u0000") ? j.replace(/\\u0000/g, "\\0") : j;
}

/** printable ASCII, tab and LF: block-safe without the Unicode-mode scan of BLOCK_SAFE_RE */
const ASCII_BLOCK_SAFE_RE = /^[\t\n\x20-\x7E]+$/;
const isEdgeSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a;

function num(v: number): string {
  return Object.is(v, -0) ? "0" : String(v);
}

/** the indentations a checkpoint uses, made once */
const PADS = Array.from({ length: 13 }, (_, i) => " ".repeat(i));
const pad = (n: number): string => PADS[n] ?? " ".repeat(n);

class Emitter {
  private out: string[] = [HEADER_COMMENT, ""];

  line(indent: number, text: string): void {
    this.out.push(pad(indent) + text);
  }

  /** `key: "value"` (identifiers, ids, paths, timestamps) */
  q(indent: number, key: string, s: string | null): void {
    this.line(indent, `${key}: ${s === null ? "null" : quoted(wellFormed(s))}`);
  }

  plain(indent: number, key: string, v: number | boolean | null): void {
    this.line(indent, `${key}: ${typeof v === "number" ? num(v) : String(v)}`);
  }

  /** free text after `prefix` ("key: " or "- ") at `indent`; block content goes at `indent + 2` */
  text(indent: number, prefix: string, raw: string): void {
    const s = wellFormed(raw);
    const blockSafe = ASCII_BLOCK_SAFE_RE.test(s) || BLOCK_SAFE_RE.test(s);
    if (!blockSafe || isEdgeSpace(s.charCodeAt(0)) || isEdgeSpace(s.charCodeAt(s.length - 1))) {
      this.line(indent, `${prefix}${quoted(s)}`);
      return;
    }
    this.line(indent, `${prefix}|-`);
    const p = pad(indent + 2);
    for (const l of s.split("\n")) this.out.push(l === "" ? "" : p + l);
  }

  /** a list of scalars: `key: []` or one `- item` per line */
  list(indent: number, key: string, items: readonly string[], asText: boolean): void {
    if (items.length === 0) return this.line(indent, `${key}: []`);
    this.line(indent, `${key}:`);
    for (const s of items) {
      if (asText) this.text(indent + 2, "- ", s);
      else this.line(indent + 2, `- ${quoted(wellFormed(s))}`);
    }
  }

  /** a list of mappings; `each` emits one item's fields at indent + 4, the first one a quoted scalar */
  maps<T>(indent: number, key: string, items: readonly T[], each: (item: T) => void): void {
    if (items.length === 0) return this.line(indent, `${key}: []`);
    this.line(indent, `${key}:`);
    for (const item of items) {
      const start = this.out.length;
      each(item);
      // the item's fields were emitted at indent + 4; turn the first one into the "- " line
      const first = this.out[start]!;
      this.out[start] = `${pad(indent + 2)}- ${first.slice(indent + 4)}`;
    }
  }

  toString(): string {
    return `${this.out.join("\n")}\n`;
  }
}

/** `meta.breakdown` (issue 27), at indent 2: fixed keys, tool names and targets quoted. */
function emitBreakdown(e: Emitter, b: ContextBreakdown): void {
  e.line(2, "breakdown:");
  e.plain(4, "total_tokens", b.total_tokens);
  e.plain(4, "estimated_tokens", b.estimated_tokens);
  e.q(4, "source", b.source);
  e.plain(4, "messages", b.messages);
  const cats = BREAKDOWN_CATEGORIES.filter((c) => b.categories[c] !== undefined);
  if (cats.length === 0) e.line(4, "categories: {}");
  else {
    e.line(4, "categories:");
    for (const c of cats) e.plain(6, c, b.categories[c]!);
  }
  for (const key of ["tool_results_by_tool", "tool_definitions_by_tool"] as const) {
    e.maps(4, key, b[key], (x) => {
      e.q(8, "tool", x.tool);
      e.plain(8, "tokens", x.tokens);
    });
  }
  e.maps(4, "largest", b.largest, (x) => {
    e.q(8, "role", x.role);
    e.q(8, "tool", x.tool);
    e.q(8, "target", x.target);
    e.plain(8, "tokens", x.tokens);
    e.q(8, "handle", x.handle);
  });
  e.line(4, "removed:");
  e.line(6, "aged_offload:");
  e.plain(8, "tokens", b.removed.aged_offload.tokens);
  e.plain(8, "items", b.removed.aged_offload.items);
  if (b.removed.smart_trim === null) e.plain(6, "smart_trim", null);
  else {
    e.line(6, "smart_trim:");
    e.plain(8, "tokens", b.removed.smart_trim.tokens);
    e.plain(8, "items", b.removed.smart_trim.items);
  }
  e.line(4, "headroom:");
  e.plain(6, "to_checkpoint", b.headroom.to_checkpoint);
  e.plain(6, "to_compaction", b.headroom.to_compaction);
  if (b.cache_reuse) {
    e.line(4, "cache_reuse:");
    e.plain(6, "percent", b.cache_reuse.percent);
    e.plain(6, "prompt_tokens", b.cache_reuse.prompt_tokens);
    e.q(6, "cause", b.cache_reuse.cause);
    if (b.cache_reuse.rules) e.q(6, "rules", b.cache_reuse.rules);
  }
}

/** One failed tool call (`thread.errors[]`, `work.open_failures[]`), in field order. */
function emitToolFailure(e: Emitter, x: ToolFailure): void {
  e.q(6, "tool", x.tool);
  e.q(6, "target", x.target);
  e.text(6, "error: ", x.error);
  e.q(6, "when", x.when);
}

/** The YAML text of a checkpoint that has already been validated (see serializeCheckpoint). */
export function emitCheckpoint(cp: Checkpoint): string {
  const e = new Emitter();
  const m = cp.meta;
  const w = cp.working;
  e.q(0, "schema", cp.schema);
  e.plain(0, "schema_version", cp.schema_version);
  e.line(0, "meta:");
  e.q(2, "checkpoint_id", m.checkpoint_id);
  e.q(2, "session_key", m.session_key);
  e.q(2, "session_id", m.session_id);
  e.q(2, "session_file", m.session_file);
  e.q(2, "created_at", m.created_at);
  e.q(2, "trigger", m.trigger);
  e.plain(2, "compaction_count", m.compaction_count);
  e.line(2, "token_usage:");
  e.plain(4, "input_tokens", m.token_usage.input_tokens);
  e.plain(4, "context_window", m.token_usage.context_window);
  e.plain(4, "utilization", m.token_usage.utilization);
  e.q(2, "previous_checkpoint", m.previous_checkpoint);
  e.q(2, "channel", m.channel);
  e.q(2, "agent_id", m.agent_id);
  if (m.breakdown) emitBreakdown(e, m.breakdown);
  e.line(0, "working:");
  e.text(2, "topic: ", w.topic);
  e.q(2, "status", w.status);
  e.plain(2, "interrupted", w.interrupted);
  if (w.last_tool_call === null) e.plain(2, "last_tool_call", null);
  else {
    e.line(2, "last_tool_call:");
    e.q(4, "name", w.last_tool_call.name);
    e.text(4, "params_summary: ", w.last_tool_call.params_summary);
  }
  e.text(2, "next_action: ", w.next_action);
  e.maps(0, "decisions", cp.decisions, (d) => {
    e.q(4, "id", d.id);
    e.text(4, "what: ", d.what);
    e.q(4, "when", d.when);
  });
  e.line(0, "resources:");
  e.list(2, "files_read", cp.resources.files_read, false);
  e.list(2, "files_modified", cp.resources.files_modified, false);
  e.list(2, "tools_used", cp.resources.tools_used, false);
  e.line(0, "thread:");
  e.text(2, "summary: ", cp.thread.summary);
  e.maps(2, "key_exchanges", cp.thread.key_exchanges, (x) => {
    e.q(6, "role", x.role);
    e.text(6, "gist: ", x.gist);
  });
  e.maps(2, "errors", cp.thread.errors, (x) => emitToolFailure(e, x));
  e.list(0, "open_items", cp.open_items, true);
  e.list(0, "learnings", cp.learnings, true);
  if (cp.workspace) {
    const ws = cp.workspace;
    e.line(0, "workspace:");
    e.q(2, "cwd", ws.cwd);
    e.maps(2, "files", ws.files, (f) => {
      e.q(6, "path", f.path);
      e.q(6, "state", f.state);
      e.plain(6, "size", f.size);
      e.plain(6, "mtime_ms", f.mtime_ms);
      e.q(6, "hash", f.hash);
      e.q(6, "hash_scope", f.hash_scope);
    });
    e.plain(2, "files_omitted", ws.files_omitted);
    if (ws.git === null) e.plain(2, "git", null);
    else {
      e.line(2, "git:");
      e.q(4, "branch", ws.git.branch);
      e.q(4, "head", ws.git.head);
      e.plain(4, "dirty", ws.git.dirty);
    }
  }
  if (cp.work) {
    const wk = cp.work;
    e.line(0, "work:");
    e.maps(2, "files", wk.files, (f) => {
      e.q(6, "path", f.path);
      e.plain(6, "edits", f.edits);
      e.plain(6, "writes", f.writes);
      e.text(6, "change: ", f.change);
      if (f.names !== undefined) e.list(6, "names", f.names, true);
      e.q(6, "last", f.last);
      e.plain(6, "mentions", f.mentions);
    });
    e.maps(2, "commands", wk.commands, (c) => {
      e.q(6, "family", c.family);
      e.text(6, "command: ", c.command);
      e.plain(6, "runs", c.runs);
      e.plain(6, "failures", c.failures);
      e.plain(6, "ok", c.ok);
      e.plain(6, "exit", c.exit);
      e.q(6, "when", c.when);
    });
    e.maps(2, "open_failures", wk.open_failures, (x) => emitToolFailure(e, x));
    e.list(2, "requests", wk.requests, true);
    e.text(2, "last_report: ", wk.last_report);
    e.plain(2, "answered", wk.answered);
    if (wk.turns !== undefined) {
      e.maps(2, "turns", wk.turns, (t) => {
        e.q(6, "request", t.request);
        e.text(6, "outcome: ", t.outcome);
        if (t.names !== undefined) e.list(6, "names", t.names, false);
      });
    }
    if (wk.tasks !== undefined) {
      e.maps(2, "tasks", wk.tasks, (t) => {
        e.q(6, "tool", t.tool);
        e.q(6, "id", t.id);
        e.text(6, "ask: ", t.ask);
        e.text(6, "outcome: ", t.outcome);
        e.plain(6, "ok", t.ok);
      });
    }
  }
  if (cp.artifacts) {
    e.maps(0, "artifacts", cp.artifacts, (x) => {
      e.q(4, "handle", x.handle);
      e.q(4, "tool", x.tool);
      e.q(4, "target", x.target);
      if (x.lines !== undefined) e.q(4, "lines", x.lines);
      e.plain(4, "bytes", x.bytes);
    });
  }
  if (cp.recovered) {
    e.line(0, "recovered:");
    e.q(2, "by_session_id", cp.recovered.by_session_id);
    e.q(2, "state_updated_at", cp.recovered.state_updated_at);
    e.list(2, "files", cp.recovered.files, false);
    e.list(2, "files_modified_since_checkpoint", cp.recovered.files_modified_since_checkpoint, false);
  }
  return e.toString();
}
