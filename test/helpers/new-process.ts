/**
 * Forgets what this process holds for the context manager (the process-wide registries on
 * globalThis: plugin slots, Sessions, the followed files' stores, …), as a new process would
 * start: for tests of hosts that run each turn in a process of its own (`openclaw agent --local`).
 */
import { processServices } from "../../src/infra/process-services.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { CacheSession } from "../../src/agents/cache/cache-session.js";

const SERVICES = "openclaw.contextManager.services";

export function forgetProcessState(): void {
  const g = globalThis as unknown as Record<symbol, unknown>;
  for (const s of Object.getOwnPropertySymbols(g)) {
    if (s.description?.startsWith("openclaw.contextManager.") && s.description !== SERVICES) delete g[s];
  }
  // of the services only the provider's hints are a chat's state. The archive worker is a thread,
  // not state: it reads the archives afresh from disk (kept, so that "process per turn" tests do
  // not start a thread per turn); the debug switch, the host's event queues and the clean
  // readings were kept before too.
  delete processServices().providerHints;
}

/** Forgets every Session's prompt-cache memory (what a restarted process holds of it). */
export function clearCacheSessions(): void {
  for (const s of [...sessionRegistry().values()]) s.cache = new CacheSession();
}
