/**
 * Forgets what this process holds for the context manager (the process-wide singletons on
 * globalThis: plugin slots, aged-offload memories, archive cache, …), as a new process would
 * start: for tests of hosts that run each turn in a process of its own (`openclaw agent --local`).
 */
const KEPT = new Set(["openclaw.contextManager.debug", "openclaw.contextManager.archiveWorker"]);

export function forgetProcessState(): void {
  const g = globalThis as unknown as Record<symbol, unknown>;
  for (const s of Object.getOwnPropertySymbols(g)) {
    // the archive worker is a thread, not state: it reads the archives afresh from disk (kept, so
    // that "process per turn" tests do not start a thread per turn)
    if (s.description?.startsWith("openclaw.contextManager.") && !KEPT.has(s.description)) delete g[s];
  }
}
