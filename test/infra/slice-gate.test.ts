/** Slices that yield through the gate take turns in arrival order, one per iteration of the event loop. */
import { describe, expect, it } from "vitest";
import { nextSlice } from "../../src/infra/process-services.js";

describe("nextSlice", () => {
  it("interleaves callers slice by slice, in arrival order", async () => {
    const log: string[] = [];
    const task = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await nextSlice();
        log.push(`${name}${i}`);
      }
    };
    await Promise.all([task("a"), task("b"), task("c")]);
    expect(log).toEqual(["a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2"]);
  });
  it("lets a timer run between two callers' slices (one slice per loop iteration, not a batch)", async () => {
    const log: string[] = [];
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    let timer: Promise<void> | null = null;
    const task = async (name: string) => {
      for (let i = 0; i < 4; i++) {
        await nextSlice();
        // the first slice sets a timer that is due before the slice ends
        timer ??= new Promise<void>((resolve) => setTimeout(() => (log.push("timer"), resolve()), 1));
        busy(5);
        log.push(name);
      }
    };
    await Promise.all([task("a"), task("b"), task("c"), task("d"), task("e")]);
    await timer;
    // the timer runs in the next iteration, after the one slice of this one: with every task's
    // slice queued as its own immediate, all five would have run first (index 5)
    expect(log.indexOf("timer")).toBe(1);
  });
});
