/** Bounded text from any input: `gist` (one short line), cuts between tokens, `safeGist`, `boundedJson`. */

import { redactSecrets } from "./redact.js";
import { wellFormed, withoutInvisible } from "./visible.js";

const ELLIPSIS = "…";

/** `\s` runs plus U+0085 (NEL), a line break for YAML 1.1 and many terminals that `\s` misses. */
const WS_RUN = /[\s\u0085]+/gu;

/** UTF-16 units read per step: gist stops once it has more than the budget of code points. */
const MIN_STEP = 128;

/** A pass these do not match would change nothing, so it is skipped (a new string per step saved). */
const MAYBE_INVISIBLE = /[^\t\n\v\f\r\x20-\x7e]/;
const MAYBE_WS_RUN = /[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]| {2}/;
const SURROGATE = /[\ud800-\udfff]/;

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** Code points of `s` up to `cap` (its length without a surrogate pair). Not a closure: keepNames costs one each. */
function countUpTo(s: string, cap: number, pairs: boolean): number {
  return pairs ? codePoints(s, cap, false) : Math.min(s.length, cap);
}

/** The first code points of `s`, at most `cap` (long texts stay cheap): their number, or (`index`) where they end. */
function codePoints(s: string, cap: number, index: boolean): number {
  let i = 0;
  let n = 0;
  // past the end charCodeAt is NaN: not a low half
  for (; i < s.length && n < cap; i++, n++) if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) i++;
  return index ? i : n;
}
export const codePointIndex = (s: string, count: number): number => codePoints(s, count, true);
export const codePointLength = (s: string, cap = Number.POSITIVE_INFINITY): number => codePoints(s, cap, false);

/**
 * One trimmed line (each whitespace run one space) without invisible characters, at most `maxChars`
 * code points, a cut text ending in "…" (counted). Read a step at a time with native regex passes.
 */
export function gist(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  if (!text || !(maxChars > 0)) return "";
  const limit = Math.floor(maxChars);
  const step = Math.max(MIN_STEP, limit + 32);
  let out = "";
  // out holds a surrogate: count code points; otherwise its length is the count
  let pairs = false;
  for (let pos = 0; pos < text.length; ) {
    let end = Math.min(text.length, pos + step);
    // never between the two halves of a surrogate pair
    if (end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end++;
    let piece = text.slice(pos, end);
    // a lone half first becomes U+FFFD: removing an invisible between two halves must not pair them
    if (MAYBE_INVISIBLE.test(piece)) piece = withoutInvisible(wellFormed(piece));
    if (MAYBE_WS_RUN.test(piece)) piece = piece.replace(WS_RUN, " ");
    pos = end;
    // one space where a run spans two steps, none at the start
    if (piece.startsWith(" ") && (out === "" || out.endsWith(" "))) piece = piece.slice(1);
    if (!pairs && SURROGATE.test(piece)) pairs = true;
    out += piece;
    // one code point beyond the budget is enough to know the text is cut
    if (countUpTo(out.endsWith(" ") ? out.slice(0, -1) : out, limit + 1, pairs) > limit) break;
  }
  if (out.endsWith(" ")) out = out.slice(0, -1);
  if (countUpTo(out, limit + 1, pairs) <= limit) return out;
  let kept = out.slice(0, pairs ? codePoints(out, Math.max(0, limit - 1), true) : Math.max(0, limit - 1));
  if (kept.endsWith(" ")) kept = kept.slice(0, -1);
  return kept + ELLIPSIS;
}

/** A value that should have been a string: numbers, booleans, bigints as themselves, else "" (no toString call). */
export function asText(v: unknown): string {
  if (typeof v === "string") return v;
  return typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" ? String(v) : "";
}

/** Like `gist` but keeps the END of the text: "…" + the last `maxChars - 1` code points. */
export function gistTail(text: string, maxChars: number): string {
  const full = gist(text, Number.MAX_SAFE_INTEGER); // gist takes a non-string as asText does
  const cps = Array.from(full);
  if (cps.length <= maxChars) return full;
  if (!(maxChars > 0)) return "";
  return `…${cps.slice(cps.length - (Math.floor(maxChars) - 1)).join("").trimStart()}`;
}

// --- Cuts BEFORE redaction: half a secret (`sk-proj-Hx`) is unrecognisable, so the partial run is dropped.
/** Characters no credential format contains; a cut moved to one never splits a token. */
const TOKEN_BREAK = /[\s"'`,;:()[\]{}<>|]/;

/** A tail cut does not stop at `:`: what follows it can be a secret half (`https://user:` | `pass@host`). */
const TAIL_BREAK = /[\s"'`,;()[\]{}<>|]/;

/** Whether UTF-16 unit `i` of `text` is a token break (false outside the string). */
function isBreak(text: string, i: number, re: RegExp = TOKEN_BREAK): boolean {
  return i >= 0 && i < text.length && re.test(text.charAt(i));
}

/** The first `max` UTF-16 units of `text`, without a token run the cut falls in or half a surrogate pair. */
export function cutHead(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, Math.floor(max));
  if (!isBreak(text, end) && !isBreak(text, end - 1)) {
    while (end > 0 && !isBreak(text, end - 1)) end--;
  }
  if (isHigh(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/** The last `max` UTF-16 units of `text`, dropping a partial token run at the start. */
export function cutTail(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - Math.max(0, Math.floor(max));
  if (!isBreak(text, start, TAIL_BREAK) && !isBreak(text, start - 1, TAIL_BREAK)) {
    while (start < text.length && !isBreak(text, start, TAIL_BREAK)) start++;
  }
  if (isLow(text.charCodeAt(start))) start++;
  return text.slice(start);
}

/** Redact a bounded window, gist, redact again (removed invisibles can join a token), cut to `maxChars`. */
export function safeGist(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  if (!text) return "";
  const raw = redactSecrets(cutHead(text, maxChars * 16 + 4096));
  const first = gist(raw, maxChars * 4 + 256);
  const redacted = redactSecrets(first);
  // a gist within the budget is its own gist: nothing left to do when the redaction changed nothing
  if (redacted === first && first.length <= maxChars) return first;
  return gist(redacted, maxChars);
}

const JSON_MAX_DEPTH = 6;

/**
 * Compact JSON-like text of `value`, about `maxChars` long, that nothing makes throw or run long;
 * strings are redacted before quoting (`\nghp_…` hides a token).
 */
export function boundedJson(value: unknown, maxChars: number): string {
  let out = "";
  const seen = new Set<object>();
  const emit = (s: string): boolean => {
    out += s.length > maxChars - out.length ? cutHead(s, Math.max(0, maxChars - out.length)) : s;
    return out.length < maxChars;
  };
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === "string") return emit(JSON.stringify(redactSecrets(cutHead(v, maxChars))));
    if (v === null || typeof v !== "object") return emit(asText(v) || "null");
    if (depth >= JSON_MAX_DEPTH || seen.has(v)) return emit("…");
    seen.add(v);
    try {
      if (Array.isArray(v)) {
        if (!emit("[")) return false;
        for (let i = 0; i < v.length; i++) if ((i > 0 && !emit(",")) || !walk(v[i], depth + 1)) return false;
        return emit("]");
      }
      if (!emit("{")) return false;
      let first = true;
      for (const k of Object.keys(v)) {
        if ((!first && !emit(",")) || !emit(`${JSON.stringify(redactSecrets(cutHead(k, maxChars)))}:`) || !walk((v as Record<string, unknown>)[k], depth + 1)) return false;
        first = false;
      }
      return emit("}");
    } catch {
      return emit("…"); // a throwing getter or proxy
    } finally {
      seen.delete(v);
    }
  };
  walk(value, 0);
  return out;
}
