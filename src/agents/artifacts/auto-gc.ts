/**
 * Artifact gc run automatically after a checkpoint write (retention has just pruned the
 * checkpoints that named old handles), instead of only by `artifact gc`. Off the LLM
 * path (after the write, never awaited, asynchronous and sliced: gc.ts), at most once an hour
 * per state dir per process, and never throws: a failure is visible with the debug switch.
 */
import { fileStores } from "../../infra/file-stores.js";
import { debugLog } from "../../infra/debug-log.js";
import { gcArtifacts, type GcReceipt } from "./gc.js";

export const AUTO_GC_INTERVAL_MS = 3_600_000;

// when each state dir's artifacts were last collected (ms)
declare module "../../infra/file-stores.js" {
  interface FileStores { artifactGcRuns?: Map<string, number> }
}

const lastRun = (): Map<string, number> => (fileStores().artifactGcRuns ??= new Map());

/** Schedules a gc of stateDir's artifacts unless one ran within the interval; resolves with its receipt (or null). */
export function scheduleArtifactGc(stateDir: string, now: number = Date.now()): Promise<GcReceipt | null> | null {
  const last = lastRun().get(stateDir);
  if (last !== undefined && now - last < AUTO_GC_INTERVAL_MS) return null;
  lastRun().set(stateDir, now);
  return new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => gcArtifacts(stateDir))
    .then(
      (receipt) => {
        if (receipt.removed.length) debugLog("artifact auto gc", `${receipt.removed.length} removed, ${receipt.bytesFreed} bytes`);
        return receipt;
      },
      (e: unknown) => {
        debugLog("artifact auto gc", e);
        return null;
      },
    );
}

export function resetAutoGcForTest(): void {
  lastRun().clear();
}
