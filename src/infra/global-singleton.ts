/** One instance per process on globalThis[Symbol.for(name)]: bundles and jiti can load a module twice. */
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
