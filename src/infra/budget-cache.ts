/**
 * An LRU cache sized by memory: a new chat and a 20,000-segment archive differ by orders of magnitude,
 * so a count cap wastes or thrashes. The debug log gets its hit rate every REPORT_EVERY lookups.
 */
import { debugLog } from "./debug-log.js";

const REPORT_EVERY = 500;

type Entry<V> = { value: V; weight: number };

export class BudgetCache<K, V> {
  private readonly map = new Map<K, Entry<V>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  /**
   * The newest entry is always kept. Over the budget, entries are first lightened in place
   * (`shed`, oldest first), then evicted (`onEvict`) unless `retain` emptied their caches and keeps
   * them (what they hold is not a cache: in-flight work); a retained entry weighs nothing until
   * weighed again. The callbacks' errors never reach the caller.
   */
  constructor(
    readonly name: string,
    private budgetBytes: number,
    private readonly weigh: (value: V) => number,
    private readonly onEvict?: (key: K, value: V) => void,
    private readonly shed?: (key: K, value: V) => boolean,
    private readonly retain?: (key: K, value: V) => boolean,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The value of `key`, made the most recent; counted as a hit or a miss. */
  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (e) {
      this.hits++;
      if (!this.passing) {
        this.map.delete(key);
        this.map.set(key, e);
      }
    } else this.misses++;
    this.report();
    return e?.value;
  }

  /** The values, least recent first, without counting or reordering. */
  *values(): IterableIterator<V> {
    for (const e of this.map.values()) yield e.value;
  }

  /** The value of `key` without counting or reordering. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = Math.max(0, this.weigh(value));
    this.map.set(key, { value, weight });
    this.bytes += weight;
    this.evict();
  }

  /** Weighs `key` again (it grew or shrank) and evicts what no longer fits. */
  reweigh(key: K): void {
    const e = this.map.get(key);
    if (!e) return;
    this.setWeight(e, this.weigh(e.value));
    this.evict();
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (e) this.bytes -= e.weight;
    return this.map.delete(key);
  }

  /** Drops every entry (what a fresh process starts from; a bench measuring one). */
  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  setBudget(bytes: number): void {
    this.budgetBytes = bytes;
    this.evict();
  }

  stats() {
    return { hits: this.hits, misses: this.misses, evictions: this.evictions, entries: this.map.size, bytes: this.bytes, budgetBytes: this.budgetBytes };
  }

  /** an eviction pass runs: a shed that reads or weighs the cache neither reorders it nor starts a pass */
  private passing = false;

  private evict(): void {
    if (this.passing) return;
    this.passing = true;
    try {
      const shed = this.shed;
      // lightened in place first (a shed entry is weighed again) …
      if (shed) this.overBudget((key, e) => this.safely(() => shed(key, e.value), false) && this.setWeight(e, this.weigh(e.value)));
      // … then evicted, unless `retain` emptied its caches and keeps it, weighing nothing
      this.overBudget((key, e) => {
        if (this.safely(() => this.retain?.(key, e.value) ?? false, false)) return this.setWeight(e, 0);
        this.delete(key);
        this.evictions++;
        this.safely(() => this.onEvict?.(key, e.value), undefined);
      });
    } finally {
      this.passing = false;
    }
  }

  /** Visits entries oldest first while over the budget; the newest is left whole. */
  private overBudget(visit: (key: K, e: Entry<V>) => void): void {
    let left = this.map.size - 1;
    for (const [key, e] of this.map) {
      if (this.bytes <= this.budgetBytes || left-- <= 0) return;
      visit(key, e);
    }
  }

  private setWeight(e: Entry<V>, weight: number): void {
    this.bytes += Math.max(0, weight) - e.weight;
    e.weight = Math.max(0, weight);
  }

  /** A callback's result; its error goes to the debug log, never to the cache's caller. */
  private safely<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      debugLog(`${this.name} cache`, err);
      return fallback;
    }
  }

  private report(): void {
    const n = this.hits + this.misses;
    if (n % REPORT_EVERY !== 0) return;
    const s = this.stats();
    const rate = n > 0 ? Math.round((s.hits / n) * 1000) / 10 : 0;
    debugLog(`${this.name} cache`, `hit rate ${rate}% (${s.hits}/${n}), ${s.entries} entries, ${Math.round(s.bytes / 2 ** 20)}/${Math.round(s.budgetBytes / 2 ** 20)} MiB, ${s.evictions} evicted`);
  }
}
