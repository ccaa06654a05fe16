/**
 * Field and segment weights of the archive's ranking (issue 27, docs/archive.md#ranking).
 *
 * Why: on the demo's session the top hit for "average" was `write`'s receipt
 * "Successfully wrote 113 bytes to test/average.test.mjs", not the content that holds
 * average(). Two things put it there: the path field weighed twice the text (so a term inside a
 * file NAME beat the same term in the code), and a receipt is short and repeats its path, so
 * BM25's length normalization scored the path's terms high. Both are structure, not words:
 * - a receipt — a succeeded tool result of at most RECEIPT_MAX_CHARS that contains its own
 *   target, or a call whose only content is its target — is ranked at RECEIPT_WEIGHT; a result
 *   receipt's target is not indexed as a field of its own: its text holds it already, and
 *   indexing it twice counted the path three times (text + a field weighed twice).
 * The target field of every other segment weighs twice the text: a segment whose path or command
 * names the term is about it (issue 40: with the field at 1, a grep whose command names an
 * identifier fell below build logs that shared a stack trace's directory names with the query).
 * Every weight is <= 1, so the search's early stop (scores only go down) stays exact.
 */
import type { ArchiveRecord } from "./store.js";

export const TARGET_FIELD_BOOST = 2;
export const TOOL_FIELD_BOOST = 1;
export const RECEIPT_WEIGHT = 0.25;
export const RECEIPT_MAX_CHARS = 160;

/** Whether a segment only acknowledges a call (it says nothing its target does not). */
export function isReceipt(r: Pick<ArchiveRecord, "role" | "text" | "target" | "error">): boolean {
  if (r.error) return false;
  if (r.role === "tool_call") return r.text.trim().length === 0;
  return r.role === "tool_result" && typeof r.target === "string" && r.target.length > 0 && r.text.length <= RECEIPT_MAX_CHARS && r.text.includes(r.target);
}

/** A segment's weight in the ranking (<= 1). */
export function segmentWeight(r: Pick<ArchiveRecord, "role" | "text" | "target" | "error">): number {
  return isReceipt(r) ? RECEIPT_WEIGHT : 1;
}

/** The target as the index reads it: none for a result receipt, whose text already holds it (a bare call keeps its target: it has nothing else). */
export function indexedTarget(r: Pick<ArchiveRecord, "role" | "text" | "target" | "error">): string {
  const target = r.target ?? "";
  return r.role === "tool_result" && isReceipt(r) && r.text.includes(target) ? "" : target;
}
