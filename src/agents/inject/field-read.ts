/** Reading a parsed checkpoint's fields defensively, shared by the restore block and the compaction summary. */

/** A count as printed: a non-negative integer, 0 for anything else. */
export function safeCount(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

/** A list field, [] when absent or not a list. */
export const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
