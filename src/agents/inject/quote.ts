/** Untrusted text as one quoted token (redacted, one line, capped): it can never start a line or a block. */
import { codePointIndex, codePointLength } from "../text/gist.js";
import { redactSecrets } from "../text/redact.js";
import { visibleText } from "../text/visible.js";

export const ELLIPSIS = "…";

/** Line breaks of every kind plus tab/vertical tab/form feed: become a space. */
const LINE_BREAKS = /[\r\n\t\v\f\u0085\u2028\u2029]/g;

/** What toSingleLine could change; most captured strings are gists already and are returned as they are. */
const CHANGED_BY_SINGLE_LINE = /[^\x20-\x7e\u2026]| {2}|^ | $/;

/** One trimmed line of what a person would see (text/visible.ts). */
export function toSingleLine(text: string): string {
  if (!CHANGED_BY_SINGLE_LINE.test(text)) return text;
  return visibleText(text.replace(LINE_BREAKS, " "))
    .replace(/\s+/g, " ")
    .trim();
}

function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max || codePointLength(text, max + 1) <= max) return text; // UTF-16 length >= code points
  return text.slice(0, codePointIndex(text, max - 1)).trimEnd() + ELLIPSIS;
}

/** Redacted, single-line, capped, JSON-style double-quoted. Safe to put anywhere in a line. */
export function quoteUntrusted(value: unknown, maxCodePoints: number): string {
  const raw = typeof value === "string" ? value : value == null ? "" : String(value);
  // redacted before and after normalization (removing invisible characters can join a token)
  const redacted = redactSecrets(raw);
  const single = toSingleLine(redacted);
  // redactSecrets is a fixpoint: a text the normalization left as it was is redacted already
  const line = truncateCodePoints(single === redacted ? single : redactSecrets(single), Math.max(1, maxCodePoints));
  return `"${line.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
