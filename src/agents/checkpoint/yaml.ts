/**
 * Checkpoint <-> YAML text (spec §5.1). Writing: emit.ts, exact by construction (no parse-back);
 * a lone UTF-16 surrogate is stored as U+FFFD. Reading: YAML errors, duplicate keys, multiple
 * documents and aliases are rejected, then the data is validated field by field.
 */
import { parseDocument } from "yaml";
import type { Checkpoint } from "./schema.js";
import { emitCheckpoint } from "./emit.js";
import { BudgetCache } from "../../infra/budget-cache.js";
import { assertParseableSize, MAX_CHECKPOINT_BYTES } from "./parse-guard.js";
import { CheckpointError } from "./errors.js";
import { wellFormed } from "./text.js";
import { validateCheckpoint } from "./validate.js";

/**
 * `value` as the file will hold it: strings well-formed, -0 as 0. Copy on write: the usual
 * checkpoint costs a walk, not a deep copy (a deep copy was a tenth of a write).
 */
export function normalizeForDisk<T>(value: T): T {
  if (typeof value === "string") return wellFormed(value) as T;
  if (typeof value === "number") return (Object.is(value, -0) ? 0 : value) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = value[i] as unknown;
      const n = normalizeForDisk(v);
      if (!Object.is(n, v) && !out) out = value.slice(0, i);
      out?.push(n);
    }
    return (out ?? value) as T;
  }
  if (value && typeof value === "object") {
    let out: Record<string, unknown> | null = null;
    const src = value as Record<string, unknown>;
    for (const k of Object.keys(src)) {
      const v = src[k];
      const n = normalizeForDisk(v);
      if (!Object.is(n, v) && !out) out = { ...src };
      if (out) out[k] = n;
    }
    return (out ?? value) as T;
  }
  return value;
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
  const known = memoizedCheckpoint(text);
  if (known) return known;
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
 * Checkpoints this process wrote or parsed, by their exact YAML text (the emitter is exact, so a
 * hit is the file's content whoever wrote it): parsing a 50 KB checkpoint takes 10 ms warm,
 * 80–170 ms cold, and a new session, a `/compact` or an evicted gateway slot reads it again.
 * 16 MiB: about 60 checkpoints of 50 KB, the UTF-16 key plus the object estimated at twice the text.
 */
const memo = new BudgetCache<string, { checkpoint: Checkpoint; chars: number }>(
  "parsed checkpoints",
  16 * 2 ** 20,
  (e) => e.chars * 4,
);

/** The checkpoint whose YAML is `text`, as a fresh copy, or undefined when not memoized. */
function memoizedCheckpoint(text: string): Checkpoint | undefined {
  const e = memo.get(text);
  return e ? structuredClone(e.checkpoint) : undefined;
}

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
