/**
 * Field and segment weights of the archive's ranking (docs/archive.md#ranking): the target field
 * weighs twice the text (a segment whose path or command names the term is about it); a receipt (a
 * short succeeded result that holds its own target, or a call with nothing but its target) ranks at
 * RECEIPT_WEIGHT and a result receipt's target is not indexed again. Every weight is <= 1, so
 * recency and weight only lower a BM25 score.
 */
import type { ArchiveRecord } from "./store.js";

export const TARGET_FIELD_BOOST = 2;
export const TOOL_FIELD_BOOST = 1;
export const RECEIPT_WEIGHT = 0.25;
export const RECEIPT_MAX_CHARS = 160;
/** Field boosts of the index, text/tool/target (a boost of 0 counts as 1). */
export const FIELD_BOOST = [1, TOOL_FIELD_BOOST || 1, TARGET_FIELD_BOOST || 1] as const;
/** Weight of a query term that is a code identifier or file name (syntax, not a word list). */
export const IDENTIFIER_BOOST = 3;
/** Age at which the recency factor has halved; measured from the newest archived segment. */
const RECENCY_HALF_LIFE_MS = 24 * 3600_000;
/** Lowest recency factor: an old exact match still beats a new loose one. */
const RECENCY_FLOOR = 0.5;

export function recencyFactor(t: number, newest: number): number {
  const age = Math.max(0, newest - t);
  return RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.pow(0.5, age / RECENCY_HALF_LIFE_MS);
}

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
