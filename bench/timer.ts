/** Timing loop with warmups; returns per-iteration milliseconds. */
export async function timeIt(iterations: number, warmup: number, fn: (i: number) => unknown | Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn(warmup + i);
    out.push(performance.now() - t0);
  }
  return out;
}
