/**
 * The replay's clock (src/replay/replay-clock.ts, infra/process-services.ts): a recorded idle gap the
 * replay ran through in milliseconds shifts every stamp taken after it by the gap it skipped,
 * and nothing stamped before; gaps the replay took as long as the recording add nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { livedTime } from "../../src/infra/process-services.js";
import { resetLivedClock } from "../../src/replay/replay-clock.js";
import { ReplayClock } from "../../src/replay/replay-clock.js";

describe("replay clock", () => {
  afterEach(() => resetLivedClock());

  it("a 12-minute recorded pause shifts the stamps taken after it by about 12 minutes", async () => {
    const clock = new ReplayClock();
    expect(clock.reach(1_000_000)).toBe(false);
    const before = Date.now();
    expect(clock.reach(1_000_000 + 12 * 60_000)).toBe(true);
    await ReplayClock.settle();
    const after = Date.now();
    expect(livedTime(before)).toBe(before);
    const shifted = livedTime(after) - after;
    expect(shifted).toBeGreaterThan(12 * 60_000 - 1_000);
    expect(shifted).toBeLessThanOrEqual(12 * 60_000);
    // a recorded step of 1 ms: no new skip, the shift stays
    expect(clock.reach(1_000_000 + 12 * 60_000 + 1)).toBe(false);
    expect(livedTime(after) - after).toBe(shifted);
    clock.dispose();
    expect(livedTime(after)).toBe(after);
  });
});
