/**
 * `gist`: one short line from arbitrary text. Used for every string the context
 * manager keeps (topics, exchanges, errors, decisions), so it must be cheap on
 * huge inputs: it walks code points and stops as soon as the budget is spent.
 */

import { isInvisible } from "./visible.js";

const ELLIPSIS = "…";

/**
 * Whitespace per `\s` (includes \r \n \t, U+2028, U+2029, NBSP and the other Unicode spaces)
 * plus U+0085 (NEL), a line break for YAML 1.1 and many terminals that `\s` does not cover.
 */
const WS = /[\s\u0085]/u;

/**
 * Single line (every whitespace run, line and paragraph separators included, becomes one
 * space), trimmed, at most `maxChars` code points; a cut text ends with "…" (counted).
 */
export function gist(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  if (!text || !(maxChars > 0)) return "";
  const limit = Math.floor(maxChars);
  const out: string[] = [];
  let pendingSpace = false;
  for (const ch of text) {
    // invisible characters (controls, format, tags, variation selectors, fillers): dropped
    if (isInvisible(ch)) continue;
    if (WS.test(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) {
      out.push(" ");
      pendingSpace = false;
    }
    out.push(ch);
    // One code point beyond the budget is enough to know the text is cut.
    if (out.length > limit) break;
  }
  if (out.length <= limit) return out.join("");
  const kept = out.slice(0, Math.max(0, limit - 1));
  while (kept.length > 0 && kept[kept.length - 1] === " ") kept.pop();
  return kept.join("") + ELLIPSIS;
}

/**
 * A string for a value that should have been one (hostile or malformed input): numbers,
 * booleans and bigints print as themselves, anything else (objects, symbols, null) is "".
 * Never throws (no user-defined toString is called).
 */
export function asText(v: unknown): string {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "boolean":
    case "bigint":
      return String(v);
    default:
      return "";
  }
}

/** Number of code points in `text`, counting at most `cap` (so long texts stay cheap). */
export function codePointLength(text: string, cap = Number.POSITIVE_INFINITY): number {
  let n = 0;
  for (const _ of text) {
    n++;
    if (n >= cap) return n;
  }
  return n;
}

/** Like `gist` but keeps the END of the text: "…" + the last `maxChars - 1` code points. */
export function gistTail(text: string, maxChars: number): string {
  if (typeof text !== "string") text = asText(text);
  const full = gist(text, Number.MAX_SAFE_INTEGER);
  const cps = Array.from(full);
  if (cps.length <= maxChars) return full;
  if (!(maxChars > 0)) return "";
  return `…${cps.slice(cps.length - (Math.floor(maxChars) - 1)).join("").trimStart()}`;
}
