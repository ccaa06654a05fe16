/**
 * The recorded session's idle gaps, lived again: pi stamps the replayed messages with the wall
 * clock, which runs through a 12-minute pause in milliseconds, so the prompt-cache policy would
 * never see its cache go cold where the recorded session's did (and where the bill, on the
 * recorded clock, has it cold). At each point the replay reaches a recorded message (a user
 * message, a reply served, a tool result delivered) the gap the replay ran shorter than the
 * recording is registered with the lived clock (infra/process-services.ts): the policy reads later
 * stamps that much later. Nothing else reads the shifted time; the stamps themselves are pi's.
 */
import { type LivedClockSkip, livedTime, processServices } from "../infra/process-services.js";

const skips = (): LivedClockSkip[] => (processServices().livedClockSkips ??= []);

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

export class ReplayClock {
  private lastRecorded: number | null = null;
  private lastLived = 0;

  constructor() {
    resetLivedClock();
  }

  /** The replay reached a message recorded at `recorded` (ms); true when a gap was skipped. */
  reach(recorded: number | undefined): boolean {
    if (typeof recorded !== "number" || !Number.isFinite(recorded)) return false;
    const lived = livedTime(Date.now());
    const skipped = this.lastRecorded === null ? 0 : recorded - this.lastRecorded - (lived - this.lastLived);
    if (skipped > 0) skipGap(skipped);
    this.lastRecorded = recorded;
    this.lastLived = lived + Math.max(0, skipped);
    return skipped > 0;
  }

  /** Lets the wall clock pass the millisecond a skip starts after, so nothing stamped next straddles it. */
  static async settle(): Promise<void> {
    const t = Date.now();
    while (Date.now() <= t + 1) await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }

  dispose(): void {
    resetLivedClock();
  }
}
