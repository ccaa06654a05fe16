/** What one process shares, once per process: bundles and jiti can load a module twice. */

/** One instance per process on globalThis[Symbol.for(name)]. */
export function globalSingleton<T>(name: string, create: () => T): T {
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  return (g[Symbol.for(name)] ??= create());
}

export interface LivedClockSkip {
  /** wall-clock time the gap was skipped at: stamps at or after it are shifted */
  from: number;
  /** total ms added to such stamps (this skip and every earlier one) */
  shift: number;
}

/** The services one process shares: a field per service (owners outside infra/ declare theirs: `declare module`). */
export interface ProcessServices {
  /** the `debug` config key turned the debug switch on (debug-log.ts) */
  debugFromConfig?: boolean;
  /** the gaps a replay skipped (filled by a replay only): `livedTime` */
  livedClockSkips?: LivedClockSkip[];
  sliceGate?: { waiting: Array<() => void>; pumping: boolean };
}

export const processServices = (): ProcessServices => globalSingleton("openclaw.contextManager.services", (): ProcessServices => ({}));

/** Files read once, then followed by this process's own appends (knowledge.jsonl, artifact refs): a field per store. */
export interface FileStores {}

export const fileStores = (): FileStores => globalSingleton("openclaw.contextManager.fileStores", (): FileStores => ({}));

/**
 * A stamp (ms, the host's wall clock) on the clock the session was lived on (idle gaps, the cache TTL): a
 * replay registers the gaps it skipped. O(skips) only while a replay registered some.
 */
export function livedTime(stamp: number): number {
  const all = processServices().livedClockSkips ?? [];
  for (let i = all.length - 1; i >= 0; i--) if (stamp >= all[i]!.from) return stamp + all[i]!.shift;
  return stamp;
}

/** Slices of work take turns, one per loop iteration: a bare setImmediate runs all queued ones at once. */
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
