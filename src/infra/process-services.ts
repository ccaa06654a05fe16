/** What one process shares, once per process: bundles and jiti can load a module twice. */

/** One instance per process on globalThis[Symbol.for(name)]. */
export function globalSingleton<T>(name: string, create: () => T): T {
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  return (g[Symbol.for(name)] ??= create());
}

/** The services one process shares: a field per service, declared by its owner (`declare module`). */
export interface ProcessServices {}

export const processServices = (): ProcessServices => globalSingleton("openclaw.contextManager.services", (): ProcessServices => ({}));

/** Files read once, then followed by this process's own appends (knowledge.jsonl, artifact refs): a field per store. */
export interface FileStores {}

export const fileStores = (): FileStores => globalSingleton("openclaw.contextManager.fileStores", (): FileStores => ({}));
