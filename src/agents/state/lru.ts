/** A Map capped by `touch`, which evicts the OLDEST entry; touching a key moves it to the end. O(1). */
export class LruMap<K, V> extends Map<K, V> {
  private newest: K | undefined;

  constructor(private readonly cap: number) {
    super();
  }

  touch(key: K, value: V): void {
    this.delete(key);
    this.set(key, value);
    this.newest = key;
    while (this.size > this.cap) this.delete(this.keys().next().value as K);
  }

  /** `key` is present and the most recently touched entry (O(1)). */
  isNewest(key: K): boolean {
    return this.newest === key && this.has(key);
  }

  list(): V[] {
    return [...this.values()];
  }
}

export function keepNewest<T>(items: T[], cap: number): T[] {
  return items.length > cap ? items.slice(items.length - cap) : items;
}
