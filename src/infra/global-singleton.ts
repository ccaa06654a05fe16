/**
 * One instance per process for `name`, kept on globalThis[Symbol.for(name)].
 * Bundlers duplicate modules across chunks and pi loads disk extensions through
 * jiti without a module cache, so a module-level `const` could exist twice.
 */
export function globalSingleton<T>(name: string, create: () => T): T {
  const key = Symbol.for(name);
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  let value = g[key];
  if (value === undefined) {
    value = create();
    g[key] = value;
  }
  return value;
}
