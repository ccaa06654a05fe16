/**
 * Names an edit or write declares (functions, classes, types; Markdown headings): they say what a
 * change was about where its first differing line often does not. Syntax only (spec finding #13).
 */
import { cutHead, gist } from "../text/gist.js";
import { redactSecrets } from "../text/redact.js";
import { prop } from "../messages/read.js";

const MAX_SCAN_CHARS = 40_000;
const MAX_NAMES = 12;
const MAX_HEADING_CHARS = 40;

/** `function f`, `class C`, `def f`, `fn f`, `func f`, `type T`, `interface I`, … (optional modifiers first) */
const KEYWORD_DECL =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:abstract\s+)?(?:async\s+)?(?:unsafe\s+)?(function\*?|class|interface|type|enum|struct|trait|def|defp|defmacro|fn|func|module|namespace|record|object)\s+([A-Za-z_$][\w$]*)/;
/** Go methods: `func (r *T) Name(` */
const GO_METHOD = /^func\s+\([^)]*\)\s*([A-Za-z_]\w*)\s*\(/;
/** `const f = (…) =>`, `const f = async function`, `export const f = x =>` */
const ARROW_DECL = /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]{1,80})?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]{1,80})?=>|[A-Za-z_$][\w$]*\s*=>)/;
/** Class members in C-like languages: `  async name(args): T {` (the body opens on the line) */
const METHOD_DECL =
  /^\s+(?:(?:public|private|protected|static|readonly|override|abstract|async|get|set|final|virtual)\s+)*(#?[A-Za-z_$][\w$]*)\s*(?:<[^>()]{0,80}>)?\s*\([^;]*\)\s*(?::\s*[^;={]{1,120})?\s*(?:throws\s+[\w.,\s]+)?\{\s*$/;
/** Control-flow words that share the method shape (`if (x) {`): syntax, not prose. */
const NOT_A_NAME = new Set(["if", "for", "while", "switch", "catch", "with", "return", "function", "else", "do", "try", "new", "await", "typeof", "super", "this", "constructor"]);
const CALLABLE = new Set(["function", "function*", "def", "defp", "defmacro", "fn", "func"]);
const MARKDOWN_HEADING_START = /^#{1,6}[ \t]/;
/** Longest heading line looked at (a heading is a title, not a page). */
const MAX_HEADING_LINE = 4096;

/** A heading's text, redacted BEFORE the cut (half a secret is unrecognisable); no lazy regex (cubic on spaces). */
function headingText(line: string): string | null {
  if (!MARKDOWN_HEADING_START.test(line)) return null;
  const body = redactSecrets(cutHead(line, MAX_HEADING_LINE)).replace(/^#+/, "").trim().replace(/[ \t]#+$/, "").trim();
  return body ? gist(body, MAX_HEADING_CHARS) : null;
}

type Found = { top: string[]; members: string[] };

/** Module functions, not closures per call (the plugin bundle keeps names: a property definition per closure). */
function isFull(f: Found): boolean {
  return f.top.length + f.members.length >= MAX_NAMES;
}

function addName(f: Found, name: string, line: string): void {
  if (isFull(f) || f.top.includes(name) || f.members.includes(name)) return;
  (/^\S/.test(line) ? f.top : f.members).push(name);
}

/** Declared names, `f()` for callables: top-level ones first (a file is named by its exports), then members. */
export function declaredNames(text: string, path: string): string[] {
  const found: Found = { top: [], members: [] };
  const md = /\.(md|markdown|mdx)$/i.test(path);
  let inFence = false;
  for (const line of cutHead(text, MAX_SCAN_CHARS).split(/\r\n|\r|\n/)) {
    if (isFull(found)) break;
    if (md) {
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      const h = inFence ? null : headingText(line);
      if (h) addName(found, `§ ${h}`, line);
      continue;
    }
    let m = KEYWORD_DECL.exec(line);
    if (m) {
      addName(found, CALLABLE.has(m[1]!) ? `${m[2]}()` : m[2]!, line);
      continue;
    }
    m = GO_METHOD.exec(line) ?? ARROW_DECL.exec(line);
    if (m) {
      addName(found, `${m[1]}()`, line);
      continue;
    }
    m = METHOD_DECL.exec(line);
    if (m && !NOT_A_NAME.has(m[1]!)) addName(found, `${m[1]}()`, line);
  }
  return [...found.top, ...found.members];
}

/** Replacement texts of an edit call (pi's `edits: [{newText}]` or the legacy field), or a write's content. */
export function changedText(toolName: string, input: unknown): string {
  if (toolName === "write") {
    const c = prop(input, "content");
    return typeof c === "string" ? c : "";
  }
  const parts: string[] = [];
  const edits = prop(input, "edits");
  if (Array.isArray(edits)) {
    for (const e of edits.slice(0, 20)) {
      const n = prop(e, "newText");
      if (typeof n === "string") parts.push(n);
    }
  }
  const legacy = prop(input, "newText") ?? prop(input, "new_string");
  if (typeof legacy === "string") parts.push(legacy);
  return parts.join("\n");
}
