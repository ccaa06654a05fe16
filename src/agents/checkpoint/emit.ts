/**
 * Checkpoint -> YAML text by the field table (schema.ts), exact without a parse-back: every value
 * takes a form YAML 1.2 reads one way (test/checkpoint/emit.test.ts): double-quoted (JSON's
 * escapes plus `\uXXXX` for what YAML refuses raw or may take as a line break), block literal
 * `|-` for block-safe free text without edge white space, plain null, booleans and numbers.
 */
import { type Checkpoint, CHECKPOINT_FIELDS, type Field } from "./schema.js";
import { wellFormed } from "../text/visible.js";

const HEADER_COMMENT = "# OpenClaw Checkpoint Schema v1";

/** Characters a YAML block literal holds verbatim: printable, no CR, no BOM, no NEL/U+2028/U+2029. */
const BLOCK_SAFE_RE = /^[\t\n\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD\u{10000}-\u{10FFFF}]+$/u;
/** What JSON.stringify leaves raw but a YAML double-quoted scalar must escape. */
const QUOTE_EXTRA_RE = /[\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]/g;

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** printable ASCII but `"` and `\\`: quoted as it is, by JSON and YAML alike */
const PLAIN_QUOTABLE_RE = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** Double-quoted scalar for an already well-formed string. */
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
    this.line(indent, `${key}: ${String(v)}`); // String(-0) is "0"
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

type Obj = Record<string, unknown>;

/** The fields of mapping `o` at `indent`, as the table lays them out; absent ones skipped. */
function emitFields(e: Emitter, indent: number, o: Obj, fields: readonly Field[]): void {
  for (const f of fields) {
    const v = o[f.key];
    if (v === undefined) continue;
    if (v === null) {
      e.plain(indent, f.key, null);
      continue;
    }
    switch (f.kind) {
      case "text":
        e.text(indent, `${f.key}: `, v as string);
        break;
      case "str":
      case "time":
      case "id":
      case "enum":
        e.q(indent, f.key, v as string);
        break;
      case "count":
      case "ratio":
      case "int":
      case "bool":
        e.plain(indent, f.key, v as number | boolean);
        break;
      case "strings":
      case "texts":
        e.list(indent, f.key, v as string[], f.kind === "texts");
        break;
      case "map":
        e.line(indent, `${f.key}:`);
        emitFields(e, indent + 2, v as Obj, f.fields);
        break;
      case "maps":
        e.maps(indent, f.key, v as Obj[], (x) => emitFields(e, indent + 4, x, f.fields));
        break;
      case "counts": {
        const keys = f.keys.filter((k) => (v as Obj)[k] !== undefined);
        e.line(indent, keys.length === 0 ? `${f.key}: {}` : `${f.key}:`);
        for (const k of keys) e.plain(indent + 2, k, (v as Obj)[k] as number);
      }
    }
  }
}

/** The YAML text of a checkpoint that has already been validated (see serializeCheckpoint). */
export function emitCheckpoint(cp: Checkpoint): string {
  const e = new Emitter();
  e.q(0, "schema", cp.schema);
  e.plain(0, "schema_version", cp.schema_version);
  emitFields(e, 0, cp as unknown as Obj, CHECKPOINT_FIELDS);
  return e.toString();
}
