/** Slices of work take turns, one per loop iteration: a bare setImmediate runs all queued ones at once. */
import { processServices } from "./process-services.js";

declare module "./process-services.js" {
  interface ProcessServices { sliceGate?: { waiting: Array<() => void>; pumping: boolean } }
}

const gate = () => (processServices().sliceGate ??= { waiting: [], pumping: false });

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
