/** `gist`: one short line from arbitrary text, for every string kept; stops once its budget is spent. */

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
  return pairs ? codePointLength(s, cap) : Math.min(s.length, cap);
}

/** The UTF-16 index where the first `count` code points of `s` end. */
export function codePointIndex(s: string, count: number): number {
  let i = 0;
  for (let n = 0; i < s.length && n < count; i++, n++) if (isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
  return i;
}

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
  let kept = out.slice(0, pairs ? codePointIndex(out, Math.max(0, limit - 1)) : Math.max(0, limit - 1));
  if (kept.endsWith(" ")) kept = kept.slice(0, -1);
  return kept + ELLIPSIS;
}

/** A value that should have been a string: numbers, booleans, bigints as themselves, else "" (no toString call). */
export function asText(v: unknown): string {
  if (typeof v === "string") return v;
  return typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" ? String(v) : "";
}

/** Number of code points in `text`, counting at most `cap` (so long texts stay cheap). */
export function codePointLength(s: string, cap = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (let i = 0; i < s.length && n < cap; i++, n++) if (isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
  return n;
}

/** Like `gist` but keeps the END of the text: "…" + the last `maxChars - 1` code points. */
export function gistTail(text: string, maxChars: number): string {
  const full = gist(text, Number.MAX_SAFE_INTEGER); // gist takes a non-string as asText does
  const cps = Array.from(full);
  if (cps.length <= maxChars) return full;
  if (!(maxChars > 0)) return "";
  return `…${cps.slice(cps.length - (Math.floor(maxChars) - 1)).join("").trimStart()}`;
}
