/** Array helpers of the indexes (bm25.ts) and smart trim's per-message state. */

/** The `limit` best of `count` items by `below` (a < b: a ranks below b), best first, without sorting them all. */
export function bestOf(count: number, limit: number, below: (a: number, b: number) => boolean): number[] {
  const heap: number[] = []; // min-heap of the best so far (root: the lowest of them)
  for (let j = 0; j < count; j++) {
    if (heap.length === limit) {
      if (!below(heap[0]!, j)) continue;
      heap[0] = j;
    } else heap.push(j);
    // restore the heap: sift up a push, sift down a replaced root
    if (heap.length <= limit && heap[0] !== j) {
      let i = heap.length - 1;
      while (i > 0) {
        const up = (i - 1) >> 1;
        if (!below(heap[i]!, heap[up]!)) break;
        [heap[i], heap[up]] = [heap[up]!, heap[i]!];
        i = up;
      }
    } else {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && below(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && below(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
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
