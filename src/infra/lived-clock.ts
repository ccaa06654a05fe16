/** The clock a session was lived on (idle gaps, the cache TTL): a replay registers the gaps it skipped. */
import { processServices } from "./process-services.js";

interface Skip {
  /** wall-clock time the gap was skipped at: stamps at or after it are shifted */
  from: number;
  /** total ms added to such stamps (this skip and every earlier one) */
  shift: number;
}

declare module "./process-services.js" {
  interface ProcessServices { livedClockSkips?: Skip[] } // filled by a replay only
}

const skips = (): Skip[] => (processServices().livedClockSkips ??= []);

/** A stamp (ms, the host's wall clock) on the clock the session was lived on. O(skips) only while a replay registered some. */
export function livedTime(stamp: number): number {
  const all = skips();
  for (let i = all.length - 1; i >= 0; i--) if (stamp >= all[i]!.from) return stamp + all[i]!.shift;
  return stamp;
}

/** The replay skipped `ms` of idle time: stamps from the next millisecond on read that much later. */
export function skipGap(ms: number): void {
  if (!(ms > 0)) return;
  const all = skips();
  const shift = (all[all.length - 1]?.shift ?? 0) + ms;
  all.push({ from: Date.now() + 1, shift });
}

/** Forgets every skip (the start and end of a replay; tests). */
export function resetLivedClock(): void {
  skips().length = 0;
}
