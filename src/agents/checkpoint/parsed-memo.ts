/**
 * Checkpoints this process has written or parsed, by their exact YAML text: parsing a 50 KB
 * checkpoint takes 10 ms warm, 80–170 ms cold, and a new session, a manual `/compact` or an
 * evicted gateway slot reads again what this process just wrote. Keyed by the text, a hit is the
 * file's content whoever wrote it (the emitter is exact). Callers get their own copy.
 */
import { BudgetCache } from "../../infra/budget-cache.js";
import type { Checkpoint } from "./schema.js";
import { MAX_CHECKPOINT_BYTES } from "./parse-guard.js";

/** about 60 checkpoints of 50 KB (text as the key, the object about twice its size) */
const BUDGET_BYTES = 16 * 2 ** 20;

interface Entry {
  checkpoint: Checkpoint;
  chars: number;
}

// the UTF-16 key plus the object, estimated at twice the text
const memo = new BudgetCache<string, Entry>("parsed checkpoints", BUDGET_BYTES, (e) => e.chars * 4);

/** The checkpoint whose YAML is `text`, as a fresh copy, or undefined when not memoized. */
export function memoizedCheckpoint(text: string): Checkpoint | undefined {
  const e = memo.get(text);
  return e ? structuredClone(e.checkpoint) : undefined;
}

/** Remembers `checkpoint` as the parse of `text` (a copy: the caller keeps its object). */
export function memoizeCheckpoint(text: string, checkpoint: Checkpoint): void {
  // a text the reader would refuse is not pinned either
  if (text.length > MAX_CHECKPOINT_BYTES) return;
  memo.set(text, { checkpoint: structuredClone(checkpoint), chars: text.length });
}

/** The checkpoint a writer just published, without a copy (a clone was a tenth of a write; it is only read after). */
export function memoizeWritten(text: string, checkpoint: Checkpoint): void {
  if (text.length > MAX_CHECKPOINT_BYTES) return;
  memo.set(text, { checkpoint, chars: text.length });
}

/** Hits and misses (tests, the debug log). */
export function parsedCheckpointStats(): { hits: number; misses: number } {
  const s = memo.stats();
  return { hits: s.hits, misses: s.misses };
}
