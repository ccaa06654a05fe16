/**
 * Checkpoint <-> YAML text (spec §5.1). Writing: by the field table (schema.ts), exact without a
 * parse-back: every value takes a form YAML 1.2 reads one way (test/checkpoint/emit.test.ts):
 * double-quoted (JSON's escapes plus `\uXXXX` for what YAML refuses raw or may take as a line break),
 * block literal `|-` for block-safe free text without edge white space, plain null, booleans and numbers.
 * Reading: a size and node bound first (`yaml` held the event loop 1.4 s on a 256 KB flow sequence
 * and ran out of heap at 30 MB; the largest checkpoint seen: 56 KB, 1,001 block lines), then YAML
 * errors, duplicate keys, multiple documents and aliases are refused, then the fields are validated.
 */
import { parseDocument } from "yaml";
import { type Checkpoint, CHECKPOINT_FIELDS, type Field } from "./schema.js";
import { wellFormed } from "../text/visible.js";
import { BudgetCache } from "../../infra/budget-cache.js";
import { CheckpointError } from "./errors.js";
import { validateCheckpoint } from "./validate.js";

/** the largest checkpoint file read (about 18× the largest seen) */
export const MAX_CHECKPOINT_BYTES = 1 << 20;
/** the most lines + flow indicators a checkpoint may have by default (about 10× the largest seen) */
export const MAX_CHECKPOINT_NODES = 10_000;
/** lines one list entry may take in the emitted YAML (a ledger file's entry is the longest) */
const LINES_PER_ENTRY = 8;

let nodeCap = MAX_CHECKPOINT_NODES;

/** Lets this process read checkpoints written under list caps summing to `entries` (never lowers the cap). */
export function allowCheckpointEntries(entries: number): void {
  if (Number.isFinite(entries)) nodeCap = Math.max(nodeCap, MAX_CHECKPOINT_NODES + LINES_PER_ENTRY * Math.ceil(entries));
}

const SPACE = 32;
const QUOTE = 34;
const BACKSLASH = 92;
/** a block scalar header as this line's value: `key: |-`, `- >`, `|2+`, optionally a comment */
const HEADER_LINE_MAX = 256;
const BLOCK_HEADER = /(?:^|:\s|-\s)\s*[|>][1-9+-]{0,2}\s*(?:#.*)?$/;

/** Does a `"` at `i` start a double-quoted scalar (and not sit inside a plain one)? */
function opensQuote(text: string, i: number, lineStart: number): boolean {
  let k = i - 1;
  while (k >= lineStart && text.charCodeAt(k) === SPACE) k--;
  if (k < lineStart) return true;
  const c = text[k];
  return c === ":" || c === "-" || c === "[" || c === "{" || c === "," || c === "?";
}

/**
 * An upper estimate (within a small factor) of the nodes `parseDocument(text)` builds, counting
 * stops once past `stopAt`. Double-quoted scalars may span lines, as YAML allows.
 */
export function yamlNodeEstimate(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let nodes = 0;
  let quoted = false;
  let blockIndent = -1;
  const n = text.length;
  for (let i = 0, end = 0; i < n && nodes <= stopAt; i = end + 1) {
    end = text.indexOf("\n", i);
    if (end < 0) end = n;
    let j = i;
    while (j < end && text.charCodeAt(j) === SPACE) j++;
    const blank = text.slice(j, end).trim() === "";
    // block scalar content: one scalar, counted with its header
    if (!quoted && blockIndent >= 0 && (blank || j - i > blockIndent)) continue;
    if (!quoted) blockIndent = -1;
    nodes++;
    // a block scalar header is a short line: only those are kept for the test below
    const keep = end - i <= HEADER_LINE_MAX;
    let outside = "";
    for (let k = i; k < end; k++) {
      const c = text.charCodeAt(k);
      if (quoted) {
        if (c === BACKSLASH) k++;
        else if (c === QUOTE) quoted = false;
        continue;
      }
      if (c === QUOTE && opensQuote(text, k, i)) {
        quoted = true;
        continue;
      }
      const ch = text[k]!;
      if (ch === "," || ch === "[" || ch === "{") nodes++;
      if (keep) outside += ch;
    }
    if (keep && !quoted && BLOCK_HEADER.test(outside.trimEnd())) blockIndent = j - i;
  }
  return nodes;
}

/** Throws CheckpointError naming `file` when `text` is over the byte or node cap. */
export function assertParseableSize(text: string, file: string): void {
  if (text.length > MAX_CHECKPOINT_BYTES) {
    throw new CheckpointError(file, undefined, `too large for a checkpoint (${text.length} characters, at most ${MAX_CHECKPOINT_BYTES})`);
  }
  const nodes = yamlNodeEstimate(text, nodeCap);
  if (nodes > nodeCap) {
    throw new CheckpointError(file, undefined, `too many YAML lines and items for a checkpoint (over ${nodeCap}): not parsed`);
  }
}

const HEADER_COMMENT = "# OpenClaw Checkpoint Schema v1";

/** Characters a YAML block literal holds verbatim: printable, no CR, no BOM, no NEL/U+2028/U+2029. */
const BLOCK_SAFE_RE = /^[\t\n\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]+$/u;
/** What JSON.stringify leaves raw but a YAML double-quoted scalar must escape. */
const QUOTE_EXTRA_RE = /[\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** printable ASCII but `"` and `\\`: quoted as it is, by JSON and YAML alike */
const PLAIN_QUOTABLE_RE = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** Double-quoted scalar for a well-formed string. */
function quoted(s: string): string {
  // ids, paths, timestamps: no escape to find, so no three scans (a fifth of an emission)
  if (PLAIN_QUOTABLE_RE.test(s)) return `"${s}"`;
  let j = JSON.stringify(s);
  // most strings hold none of these: test before rewriting (the replaces were a tenth of an emission)
  if (j.search(QUOTE_EXTRA_RE) >= 0) j = j.replace(QUOTE_EXTRA_RE, hex4);
  return j.includes("\\u0000") ? j.replace(/\\u0000/g, "\\0") : j;
}

/** printable ASCII, tab and LF: block-safe without the Unicode-mode scan of BLOCK_SAFE_RE */
const ASCII_BLOCK_SAFE_RE = /^[\t\n\x20-\x7E]+$/;
const isEdgeSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a;
/** Text a `|-` block holds exactly: block-safe characters, no white space at its edges. */
const blockable = (s: string): boolean =>
  !isEdgeSpace(s.charCodeAt(0)) &&
  !isEdgeSpace(s.charCodeAt(s.length - 1)) &&
  (ASCII_BLOCK_SAFE_RE.test(s) || BLOCK_SAFE_RE.test(s));

/** the indentations a checkpoint uses, made once */
const PADS = Array.from({ length: 13 }, (_, i) => " ".repeat(i));
const pad = (n: number): string => PADS[n] ?? " ".repeat(n);

type Obj = Record<string, unknown>;

/** A scalar after `prefix` ("key: " or "- ") at `indent`: free text (`text`) a `|-` block where exact. */
function emitScalar(out: string[], indent: number, prefix: string, v: unknown, text: boolean): void {
  const head = `${pad(indent)}${prefix}`;
  if (typeof v !== "string") out.push(head + String(v));
  else if (!text || !blockable(v)) out.push(head + quoted(v));
  else {
    out.push(`${head}|-`);
    const p = pad(indent + 2);
    for (const l of v.split("\n")) out.push(l === "" ? "" : p + l);
  }
}

/** The fields of mapping `o` at `indent`, as the table lays them out; absent ones skipped. */
function emitFields(out: string[], indent: number, o: Obj, fields: readonly Field[]): void {
  const p = pad(indent);
  for (const f of fields) {
    const v = o[f.key];
    if (v === undefined) continue;
    if (v === null || typeof v !== "object") emitScalar(out, indent, `${f.key}: `, v, f.kind === "text");
    else if (f.kind === "map") {
      out.push(`${p}${f.key}:`);
      emitFields(out, indent + 2, v as Obj, f.fields);
    } else if (f.kind === "counts") {
      const keys = f.keys.filter((k) => (v as Obj)[k] !== undefined);
      out.push(`${p}${f.key}:${keys.length === 0 ? " {}" : ""}`);
      for (const k of keys) out.push(`${p}  ${k}: ${String((v as Obj)[k])}`);
    } else {
      const items = v as unknown[];
      out.push(`${p}${f.key}:${items.length === 0 ? " []" : ""}`);
      for (const item of items) {
        if (f.kind !== "maps") emitScalar(out, indent + 2, "- ", item, f.kind === "texts");
        else {
          // the item's fields go at indent + 4; the first one becomes the "- " line
          const start = out.length;
          emitFields(out, indent + 4, item as Obj, f.fields);
          out[start] = `${p}  - ${out[start]!.slice(indent + 4)}`;
        }
      }
    }
  }
}

/** The YAML text of a checkpoint normalized for disk (normalizeForDisk; see serializeCheckpoint). */
export function emitCheckpoint(cp: Checkpoint): string {
  const out = [HEADER_COMMENT, "", `schema: ${quoted(cp.schema)}`, `schema_version: ${cp.schema_version}`];
  emitFields(out, 0, cp as unknown as Obj, CHECKPOINT_FIELDS);
  return `${out.join("\n")}\n`;
}

/**
 * `value` as the file will hold it: strings well-formed, -0 as 0. Copy on write: the usual
 * checkpoint costs a walk, not a deep copy (a deep copy was a tenth of a write).
 */
export function normalizeForDisk<T>(value: T): T {
  if (typeof value === "string") return wellFormed(value) as T;
  if (typeof value === "number") return (Object.is(value, -0) ? 0 : value) as T;
  if (!value || typeof value !== "object") return value;
  const src = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k of Object.keys(src)) {
    const n = normalizeForDisk(src[k]);
    if (!Object.is(n, src[k])) (out ??= (Array.isArray(src) ? [...src] : { ...src }) as Record<string, unknown>)[k] = n;
  }
  return (out ?? value) as T;
}

/**
 * Checkpoint -> YAML. Validates the checkpoint first (throws CheckpointError naming
 * `<checkpoint_id>.yaml` and the field); `parseCheckpoint(result)` deep-equals it (see the header).
 */
export function serializeCheckpoint(cp: Checkpoint): string {
  const label = `${typeof cp?.meta?.checkpoint_id === "string" ? cp.meta.checkpoint_id : "checkpoint"}.yaml`;
  return emitCheckpoint(normalizeForDisk(validateCheckpoint(cp, label)));
}

/** YAML text -> validated Checkpoint; throws CheckpointError naming `file` and the field. */
export function parseCheckpoint(text: string, file: string): Checkpoint {
  const known = memo.get(text);
  if (known) return structuredClone(known.checkpoint);
  if (text.trim() === "") throw new CheckpointError(file, undefined, "empty file");
  assertParseableSize(text, file);
  const checkpoint = validateCheckpoint(parseYamlData(text, file), file);
  memoizeCheckpoint(text, checkpoint);
  return checkpoint;
}

/** One YAML document as plain data: syntax errors, duplicate keys and aliases are a CheckpointError. */
export function parseYamlData(text: string, file: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, strict: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) throw new CheckpointError(file, undefined, `invalid YAML: ${first.message.split("\n")[0]}`, { cause: first });
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    throw new CheckpointError(file, undefined, `invalid YAML: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Checkpoints this process wrote or parsed, by their exact YAML text (a hit is the file's content
 * whoever wrote it): a 50 KB one parses in 10 ms warm, 80–170 ms cold, and a new session, a `/compact`
 * or an evicted gateway slot reads it again. 16 MiB: about 60 of 50 KB (key + object ~ 4 × the text).
 */
const memo = new BudgetCache<string, { checkpoint: Checkpoint; chars: number }>(
  "parsed checkpoints",
  16 * 2 ** 20,
  (e) => e.chars * 4,
);

/**
 * Remembers `checkpoint` as the parse of `text`: a copy, or, `owned` (a writer's, only read
 * after), the object itself (a clone was a tenth of a write). A text the reader refuses is not pinned.
 */
export function memoizeCheckpoint(text: string, checkpoint: Checkpoint, owned = false): void {
  if (text.length > MAX_CHECKPOINT_BYTES) return;
  memo.set(text, { checkpoint: owned ? checkpoint : structuredClone(checkpoint), chars: text.length });
}

/** Hits and misses (tests, the debug log). */
export const parsedCheckpointStats = () => memo.stats();
