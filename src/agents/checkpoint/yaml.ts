/**
 * Checkpoint <-> YAML text (spec §5.1). Writing: emit.ts, exact by construction (no parse-back).
 * Reading: a size and node bound first (`yaml` held the event loop 1.4 s on a 256 KB flow sequence
 * and ran out of heap at 30 MB; the largest checkpoint seen: 56 KB, 1,001 block lines), then YAML
 * errors, duplicate keys, multiple documents and aliases are refused, then the fields are validated.
 */
import { parseDocument } from "yaml";
import type { Checkpoint } from "./schema.js";
import { emitCheckpoint } from "./emit.js";
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
 * `<checkpoint_id>.yaml` and the field); `parseCheckpoint(result)` deep-equals it (see emit.ts).
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
export function parsedCheckpointStats(): { hits: number; misses: number } {
  const s = memo.stats();
  return { hits: s.hits, misses: s.misses };
}
