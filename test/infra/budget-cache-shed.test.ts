/**
 * A cache over its memory budget lightens its least recently used entries first (the session
 * slots let go of their histories) and evicts whole entries only when that is not enough
 * (issue 24: a gateway's slots keep their engines and state, not 200 histories).
 */
import { describe, expect, it } from "vitest";
import { BudgetCache } from "../../src/infra/budget-cache.js";

interface Entry {
  base: number;
  extra: number;
}

function cache(budget: number, evicted: string[]) {
  return new BudgetCache<string, Entry>(
    "test",
    budget,
    (e) => e.base + e.extra,
    (k) => void evicted.push(k),
    (_k, e) => {
      if (e.extra === 0) return false;
      e.extra = 0;
      return true;
    },
  );
}

describe("BudgetCache with shed", () => {
  it("lightens the oldest entries first, leaves the newest whole, evicts only when lightening is not enough", () => {
    const evicted: string[] = [];
    const c = cache(100, evicted);
    const a = { base: 10, extra: 40 };
    const b = { base: 10, extra: 40 };
    c.set("a", a);
    c.set("b", b);
    expect(c.stats().bytes).toBe(100);
    const d = { base: 10, extra: 40 };
    c.set("d", d); // 150 > 100: a is lightened (110), then b (70); d stays whole
    expect([a.extra, b.extra, d.extra]).toEqual([0, 0, 40]);
    expect(c.stats().bytes).toBe(70);
    expect(evicted).toEqual([]);
    expect(c.size).toBe(3);
    // nothing left to lighten but the newest: the oldest goes whole
    c.set("e", { base: 60, extra: 0 }); // 130: d lightened (90)
    expect(d.extra).toBe(0);
    expect(evicted).toEqual([]);
    c.set("f", { base: 30, extra: 0 }); // 120: a, b, d, e have nothing to shed: a then b evicted
    expect(evicted).toEqual(["a", "b"]);
    expect(c.stats().bytes).toBe(100);
  });
  it("a recently used entry is lightened after the older ones", () => {
    const c = cache(100, []);
    const a = { base: 10, extra: 40 };
    const b = { base: 10, extra: 40 };
    c.set("a", a);
    c.set("b", b);
    c.get("a"); // a is now the most recent
    c.set("d", { base: 10, extra: 10 }); // 120: b (the oldest) is lightened first and that is enough
    expect([a.extra, b.extra]).toEqual([40, 0]);
  });
});
