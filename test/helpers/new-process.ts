/**
 * Forgets what this process holds for the context manager (the process-wide singletons on
 * globalThis: plugin slots, aged-offload memories, archive cache, …), as a new process would
 * start: for tests of hosts that run each turn in a process of its own (`openclaw agent --local`).
 */
export function forgetProcessState(): void {
  const g = globalThis as unknown as Record<symbol, unknown>;
  for (const s of Object.getOwnPropertySymbols(g)) {
    if (s.description?.startsWith("openclaw.contextManager.") && s.description !== "openclaw.contextManager.debug") delete g[s];
  }
}
