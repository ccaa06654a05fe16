/** A capped Map evicting the OLDEST entry; touching a key moves it to the end. O(1) (Map insertion order). */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  private newestKey: { key: K } | null = null;

  constructor(private readonly cap: number) {}

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Insert or refresh `key` as the most recent; evicts the oldest entries beyond the cap. */
  touch(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newestKey = { key };
    this.evict();
  }

  /** `key` is present and the most recently touched entry (O(1)). */
  isNewest(key: K): boolean {
    return this.newestKey !== null && this.newestKey.key === key && this.map.has(key);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
    this.newestKey = null;
  }

  keys(): K[] {
    return [...this.map.keys()];
  }

  values(): V[] {
    return [...this.map.values()];
  }

  entries(): Array<[K, V]> {
    return [...this.map.entries()];
  }

  private evict(): void {
    while (this.map.size > this.cap) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.map.delete(oldest.value);
    }
  }
}

/** Keeps the last `cap` items of a list (oldest dropped). */
export function keepNewest<T>(items: T[], cap: number): T[] {
  return items.length > cap ? items.slice(items.length - cap) : items;
}
