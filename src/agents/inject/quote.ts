/**
 * Untrusted text -> one safe quoted token. Captured or on-disk strings go through here before
 * they reach an agent-readable block (restore, recall, drift): redacted, collapsed to one line
 * with invisible characters removed, length-capped and JSON-style quoted, so they can never
 * start a line, forge a header or end a block.
 */
import { redactSecrets } from "../text/redact.js";
import { visibleText } from "../text/visible.js";

export const ELLIPSIS = "…";

/** Line breaks of every kind plus tab/vertical tab/form feed: become a space. */
const LINE_BREAKS = /[\r\n\t\v\f\u0085\u2028\u2029]/g;

/**
 * What toSingleLine could change: anything but printable ASCII and the gist's "…" (line breaks,
 * invisible and other non-ASCII code points), a run of spaces, a space at either end. Most
 * captured strings are already gists (one line, plain ASCII, "…" where cut): they are returned
 * as they are, without three passes.
 */
const CHANGED_BY_SINGLE_LINE = /[^\x20-\x7e\u2026]| {2}|^ | $/;

/**
 * Collapse to one trimmed line that shows only what a person would see: every invisible or
 * format code point removed by Unicode class (see text/visible.ts), lone surrogates -> U+FFFD.
 */
export function toSingleLine(text: string): string {
  if (!CHANGED_BY_SINGLE_LINE.test(text)) return text;
  return visibleText(text.replace(LINE_BREAKS, " "))
    .replace(/\s+/g, " ")
    .trim();
}

function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max) return text; // UTF-16 length >= code points
  let count = 0;
  let end = 0;
  for (const ch of text) {
    if (count === max - 1) {
      // Is there more than one code point left? Then cut here and add the ellipsis.
      if (text.length - end > ch.length) return text.slice(0, end).trimEnd() + ELLIPSIS;
      return text;
    }
    count++;
    end += ch.length;
  }
  return text;
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
