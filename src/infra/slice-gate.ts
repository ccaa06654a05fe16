/**
 * Slices of work that a caller cuts to let the event loop run take turns: one slice per iteration
 * of the loop, in arrival order, process-wide. A `setImmediate` yield alone does not bound the
 * loop's delay when many chats yield at once: every immediate queued before the check phase runs
 * in that one phase, before any timer or I/O callback (200 commits in flight, each slice up to
 * its budget, were hundreds of milliseconds in one stretch). Through the gate the next slice
 * starts in the next iteration, after the loop has gone round.
 */
import { processServices } from "./process-services.js";

interface Gate {
  waiting: Array<() => void>;
  pumping: boolean;
}

declare module "./process-services.js" {
  interface ProcessServices { sliceGate?: Gate }
}

const gate = (): Gate => (processServices().sliceGate ??= { waiting: [], pumping: false });

function pump(): void {
  const g = gate();
  g.waiting.shift()?.();
  // queued during the check phase: the next waiter goes in the next iteration of the loop
  if (g.waiting.length > 0) setImmediate(pump);
  else g.pumping = false;
}

/** Resolves when it is this caller's turn to run its next slice. */
export function nextSlice(): Promise<void> {
  const g = gate();
  return new Promise<void>((resolve) => {
    g.waiting.push(resolve);
    if (!g.pumping) {
      g.pumping = true;
      setImmediate(pump);
    }
  });
}
