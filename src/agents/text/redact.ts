/**
 * Credentials in every captured or rendered string become `[REDACTED:<class>]`. Input of any size: every
 * pattern is linear (a run starts only at its run's start; whole-match checks in the callback), and the
 * output a fixpoint (no pattern matches a marker). docs/security.md says what is kept on purpose.
 */

import { secretRuleRanges } from "./secret-rules.js";
import { isMarker, MARKER_PREFIX, marker, OWN_PASSES, type Replacer } from "./redact-passes.js";

// --- the maintained rule set (text/secret-rules.ts) -----------------------------------------
const redactByRuleSet: Replacer = (text) => {
  let out = "";
  let pos = 0;
  // sorted, merged, never empty: no range found leaves pos at 0
  for (const [a, b] of secretRuleRanges(text)) {
    const found = text.slice(a, b);
    // a range over one of our markers: already redacted
    out += text.slice(pos, a) + (found.includes(MARKER_PREFIX) ? found : marker("secretlint"));
    pos = b;
  }
  return pos === 0 ? text : out + text.slice(pos);
};

// last: our passes name what they found; the rule set catches what they do not know
const RAW_PASSES: Replacer[] = [...OWN_PASSES, redactByRuleSet];

/** Raw first (only it shows `"p@ss \"word\""` whole), then the decoded JSON views find what escaping hid. */
function redactAll(text: string, passes: readonly Replacer[]): string {
  const raw = redactWhole(text, passes);
  const viewed = redactEscapedViews(raw, passes);
  return viewed === raw ? raw : redactWhole(viewed, passes);
}

const MAX_ROUNDS = 4;

/** Every recognised secret replaced by its marker; a match of MBs (RangeError in V8) is redacted in chunks. */
export function redactSecrets(text: string): string {
  if (typeof text !== "string") return "";
  const memo = text.length <= MEMO_MAX_CHARS;
  const hit = memo ? recent.get(text) : undefined;
  if (hit !== undefined || text.length === 0) return hit ?? text;
  let out: string;
  try {
    out = redactSecretsUncached(text);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    out = redactChunked(text);
  }
  if (memo) remember(text, out);
  return out;
}

/** One text is redacted several times per turn: recent results kept (60 -> 31 ms a turn at 100 keys). */
const MEMO_MAX_CHARS = 64 * 1024;
const MEMO_BUDGET_CHARS = 4 * 1024 * 1024;
const ENTRY_CHARS = 128;
const recent = new Map<string, string>();
let recentChars = 0;
const weight = (text: string): number => Math.max(ENTRY_CHARS, text.length);
function remember(text: string, out: string): void {
  recent.set(text, out);
  recentChars += weight(text);
  while (recentChars > MEMO_BUDGET_CHARS) {
    const oldest = recent.keys().next().value as string;
    recent.delete(oldest);
    recentChars -= weight(oldest);
  }
}

const CHUNK = 256 * 1024;
const CUT_WINDOW = 4096;

function redactChunked(text: string): string {
  let out = "";
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const ws = text.slice(end - CUT_WINDOW, end).search(/\s[^\s]*$/);
      if (ws >= 0) end = end - CUT_WINDOW + ws + 1;
      const c = text.charCodeAt(end - 1);
      if (c >= 0xd800 && c <= 0xdbff) end -= 1;
    }
    out += redactSecretsUncached(text.slice(start, end));
    start = end;
  }
  return out;
}

/** `redactSecrets` without its memo of recent texts: for measuring its cost (bench/redaction-corpus.ts). */
export function redactSecretsUncached(text: string): string {
  return redactAll(text, RAW_PASSES);
}

/** Our passes alone, without the rule set: for the measurement that justifies it (bench/redaction-corpus.ts). */
export function redactOwnRulesOnly(text: string): string {
  return redactAll(text, OWN_PASSES);
}

function redactWhole(text: string, passes: readonly Replacer[]): string {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let next = current;
    for (const pass of passes) next = pass(next);
    if (next === current) return current;
    current = next;
  }
  return current;
}

// --- secrets inside escaped JSON (`\"key\": \"…\"` hides names, quotes, line ends): each decoded level is
// redacted too, and each redacted span written back at its raw place; nothing else changes.
/** What one level of JSON string escaping writes. */
const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;
/** Levels decoded at most; deeper text is read as it is at this level. */
const MAX_DEPTH = 4;

const SIMPLE: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

interface View {
  text: string;
  /** start[i]: where the view's character i begins in the raw text; start[text.length] = the raw length */
  start: Int32Array;
}

/** `JSON_ESCAPE` with its letter, or the 4 hex digits of `\uXXXX`, captured. */
const JSON_ESCAPES = /\\(?:(["\\/bfnrt])|u([0-9a-fA-F]{4}))/g;

/** One level of JSON escapes decoded (a lone backslash stays); `from`: input index -> raw index (null: raw). */
function decodeLevel(text: string, from: Int32Array | null): View {
  const start = new Int32Array(text.length + 1);
  let n = 0;
  let copyFrom = 0;
  const at = (k: number): number => (from === null ? k : from[k]!);
  const copyTo = (end: number): void => {
    for (let k = copyFrom; k < end; k++) start[n++] = at(k);
  };
  const decoded = text.replace(JSON_ESCAPES, (esc: string, c: string, hex: string | undefined, offset: number) => {
    copyTo(offset);
    start[n++] = at(offset);
    copyFrom = offset + esc.length;
    return hex === undefined ? SIMPLE[c]! : String.fromCharCode(parseInt(hex, 16));
  });
  copyTo(text.length);
  start[n] = at(text.length);
  return { text: decoded, start: start.subarray(0, n + 1) };
}

const MARKER_RE = /\[REDACTED:[a-z_]+\]/g;

/**
 * The spans of `view` that `redacted` replaced by markers ([from, to, marker]): each ends where the
 * literal text after its marker resumes. Null when they do not align so (then the whole changed
 * stretch is redacted).
 */
function alignMarkers(view: string, redacted: string): Array<[number, number, string]> | null {
  const spans: Array<[number, number, string]> = [];
  let i = 0;
  let j = 0;
  const markers = Array.from(redacted.matchAll(MARKER_RE), (m): [number, string] => [m.index, m[0]]);
  for (let k = 0; k < markers.length; k++) {
    const [at, mark] = markers[k]!;
    const lit = redacted.slice(j, at);
    if (!view.startsWith(lit, i)) return null;
    i += lit.length;
    j = at + mark.length;
    if (view.startsWith(mark, i)) {
      i += mark.length; // a marker already in the view
      continue;
    }
    // adjacent markers replaced one stretch between them: it ends where the next literal resumes
    let next = k + 1;
    while (next < markers.length && markers[next]![0] === j && !view.startsWith(markers[next]![1], i)) j += markers[next++]![1].length;
    const after = redacted.slice(j, next < markers.length ? markers[next]![0] : redacted.length);
    let end: number;
    if (next >= markers.length) {
      end = view.length - after.length;
      if (end <= i || !view.endsWith(after)) return null;
    } else {
      end = after === "" ? -1 : view.indexOf(after, i + 1);
      if (end < 0) return null;
    }
    spans.push([i, end, mark]);
    i = end;
    k = next - 1;
  }
  return view.slice(i) === redacted.slice(j) ? spans : null;
}

/** The stretch that differs (common prefix and suffix kept): for two texts no alignment explains. */
function changedStretch(view: string, redacted: string): [number, number, string] {
  let a = 0;
  while (a < view.length && a < redacted.length && view.charCodeAt(a) === redacted.charCodeAt(a)) a++;
  let b = 0;
  while (b < view.length - a && b < redacted.length - a && view.charCodeAt(view.length - 1 - b) === redacted.charCodeAt(redacted.length - 1 - b)) b++;
  const mark = redacted.slice(a).match(MARKER_RE)?.[0] ?? `${MARKER_PREFIX}secret]`;
  return [a, view.length - b, mark];
}

/** The raw text with the given view spans (in raw indices) replaced by their markers. */
function writeBack(text: string, raw: Array<[number, number, string]>): string {
  raw.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let out = "";
  let pos = 0;
  for (const [a, b, mark] of raw) {
    if (b <= pos) continue; // inside a span already written
    const from = Math.max(a, pos);
    // a stretch that is already a marker in the raw text stays as it is
    out += text.slice(pos, from) + (from === a && isMarker(text.slice(a, b)) ? text.slice(a, b) : mark);
    pos = b;
  }
  return out + text.slice(pos);
}

const hasEscape = (text: string): boolean => text.includes("\\") && JSON_ESCAPE.test(text);

/**
 * The decoded views redacted by `passes` and the spans written back. Deepest first, each shallower
 * view decoded from the text redacted so far: there a deeper level's line breaks are still `\\n`,
 * and a value run would read on into the next line.
 */
function redactEscapedViews(text: string, passes: readonly Replacer[]): string {
  if (!hasEscape(text)) return text;
  let depth = 0;
  for (let t = text; depth < MAX_DEPTH && hasEscape(t); depth++) t = decodeLevel(t, null).text;
  let out = text;
  for (let d = depth; d >= 1; d--) {
    let view = decodeLevel(out, null);
    for (let k = 1; k < d; k++) view = decodeLevel(view.text, view.start);
    const redacted = redactWhole(view.text, passes);
    if (redacted === view.text) continue;
    const spans = alignMarkers(view.text, redacted) ?? [changedStretch(view.text, redacted)];
    out = writeBack(
      out,
      spans.map(([a, b, mark]) => [view.start[a]!, view.start[b]!, mark]),
    );
  }
  return out;
}
