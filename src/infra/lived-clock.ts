/** The clock a session was lived on (idle gaps, the cache TTL): a replay registers the gaps it skipped. */
import { processServices } from "./process-services.js";

export interface LivedClockSkip {
  /** wall-clock time the gap was skipped at: stamps at or after it are shifted */
  from: number;
  /** total ms added to such stamps (this skip and every earlier one) */
  shift: number;
}

declare module "./process-services.js" {
  interface ProcessServices { livedClockSkips?: LivedClockSkip[] } // filled by a replay only
}

/** A stamp (ms, the host's wall clock) on the clock the session was lived on. O(skips) only while a replay registered some. */
export function livedTime(stamp: number): number {
  const all = processServices().livedClockSkips ?? [];
  for (let i = all.length - 1; i >= 0; i--) if (stamp >= all[i]!.from) return stamp + all[i]!.shift;
  return stamp;
}
