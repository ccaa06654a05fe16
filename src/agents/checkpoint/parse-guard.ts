/**
 * A bound on what parsing a checkpoint may cost, checked before the parse: the `yaml` parser held
 * the event loop 1.4 s on a 256 KB flow sequence (`[a, a, …]`) and exhausted the heap at 30 MB.
 * Checkpoints are block YAML, one scalar per line (the largest seen: 56 KB, 1,001 lines).
 */
import { CheckpointError } from "./errors.js";

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
  let i = 0;
  const n = text.length;
  while (i < n && nodes <= stopAt) {
    let end = text.indexOf("\n", i);
    if (end < 0) end = n;
    let j = i;
    while (j < end && text.charCodeAt(j) === SPACE) j++;
    const blank = text.slice(j, end).trim() === "";
    if (!quoted && blockIndent >= 0 && (blank || j - i > blockIndent)) {
      i = end + 1; // block scalar content: one scalar, counted with its header
      continue;
    }
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
    i = end + 1;
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
