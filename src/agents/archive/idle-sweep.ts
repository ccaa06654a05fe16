/**
 * Runs the idle-archive sweep (forget.ts) in the background at most once a day per state dir and
 * process, from engine creation (a session start): an idle key's archive is otherwise never cut to the retention
 * (issue 28). A failure is logged, never thrown.
 */
import { consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";
import { sweepIdleArchives } from "./forget.js";

const DAY_MS = 24 * 3600 * 1000;
const lastSweep = new Map<string, number>();

export function sweepIdleArchivesSoon(stateDir: string, retentionDays: number, logger: WarnLogger = consoleWarnLogger, now = Date.now()): void {
  const last = lastSweep.get(stateDir);
  if (last !== undefined && now - last < DAY_MS) return;
  lastSweep.set(stateDir, now);
  const timer = setTimeout(() => {
    sweepIdleArchives(stateDir, { retentionDays }).catch((e: unknown) => {
      try {
        logger.warn(`[context-manager] idle archive sweep failed: ${(e as Error)?.message ?? String(e)}`);
      } catch {
        // a broken logger must not break the host
      }
    });
  }, 0);
  timer.unref?.();
}

/** For tests: forget when the sweep last ran. */
export function resetIdleSweepForTest(): void {
  lastSweep.clear();
}
