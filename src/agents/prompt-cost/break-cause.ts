/**
 * Why a request reused less than the previous one left cached: the entries expired (ttl); the prompt
 * changed inside the cached part (the tag of either block at the first difference, "other" when
 * neither is ours); else no breakpoint reached the shared prefix within the lookback (lookback).
 */
import type { BlockTag, CostBlock, RequestBill } from "./request.js";

export type BreakCause = BlockTag | "ttl" | "lookback" | "other";

export const BREAK_CAUSES: readonly BreakCause[] = ["gauge", "aged", "trim", "recall", "restore", "compaction", "ttl", "lookback", "other"];

export function breakCause(bill: RequestBill, previous: readonly CostBlock[], current: readonly CostBlock[]): BreakCause | null {
  if (bill.previousCached <= 0 || bill.read >= bill.previousCached) return null;
  if (bill.expired) return "ttl";
  if (bill.sharedPrefix < bill.previousCached) return current[bill.divergedAt]?.tag ?? previous[bill.divergedAt]?.tag ?? "other";
  return "lookback";
}
