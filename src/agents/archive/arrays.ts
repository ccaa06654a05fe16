/** Array helpers of the indexes (bm25.ts) and smart trim's per-message state. */

/** The `limit` best of `count` items by `below` (a < b: a ranks below b), best first, without sorting them all. */
export function bestOf(count: number, limit: number, below: (a: number, b: number) => boolean): number[] {
  const heap: number[] = []; // min-heap of the best so far (root: the lowest of them)
  for (let j = 0; j < count; j++) {
    if (heap.length < limit) {
      // sift the pushed one up
      for (let i = heap.push(j) - 1, u = (i - 1) >> 1; i > 0 && below(heap[i]!, heap[u]!); i = u, u = (i - 1) >> 1) {
        [heap[i], heap[u]] = [heap[u]!, heap[i]!];
      }
    } else if (below(heap[0]!, j)) {
      heap[0] = j;
      // sift the new root down
      for (let i = 0, m = 0; ; i = m) {
        const l = 2 * i + 1;
        if (l < heap.length && below(heap[l]!, heap[m]!)) m = l;
        if (l + 1 < heap.length && below(heap[l + 1]!, heap[m]!)) m = l + 1;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      }
    }
  }
  return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
}

type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** `a` when it holds `n`, else a doubled copy of its first `keep` items (typed arrays grow like this). */
export function grown<T extends Typed>(a: T, n: number, keep = a.length): T {
  if (n <= a.length) return a;
  let cap = Math.max(1, a.length); // an empty array would double forever
  while (cap < n) cap *= 2;
  const b = new (a.constructor as new (size: number) => T)(cap);
  b.set(a.subarray(0, keep));
  return b;
}
