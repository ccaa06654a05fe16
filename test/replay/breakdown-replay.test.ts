/**
 * The context breakdown on a replayed real transcript (issue 27): at every chat request of the
 * replay (the real host runner, the faux model), the breakdown the context manager computed for
 * the request sums to what the faux model counted of what it was sent within 2%, and its
 * largest items are the largest messages. The count is the faux model's (src/faux/faux-model.ts),
 * not the breakdown's. At a small window the run compacts, so requests estimated throughout (no
 * usable usage after a compaction) are checked too. All transcripts: `npm run replay` and
 * docs/benchmarks.md#context-breakdown.
 */
import { describe, expect, it } from "vitest";
import { loadTranscript } from "../../src/replay/transcript.js";
import { replayTranscript } from "../../src/replay/replayer.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { transcriptPath } from "../helpers/transcripts.js";

const FILE = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.json";
/** pi-mono's large session: aborted replies between measured ones, aged offload, compactions at 32k */
const ABORTS = "badlogic__pi-mono__large-session.json";

/**
 * Within 2% at every request: reconciled with a reply's usage, against the faux model's own count
 * (the one its usage reports); estimated throughout (before the first reply, after a compaction),
 * against the request with tools as a provider gets them (name, description, parameters: the faux
 * model's count also serializes pi's own tool fields, which no provider is sent).
 */
function expectWithin2pct(b: Awaited<ReturnType<typeof replayTranscript>>["breakdown"]): void {
  const worst = JSON.stringify(b.worst);
  expect(b.sdkRequests).toBeGreaterThan(0);
  expect(b.sdkOver2pct, `worst request: ${worst}`).toBe(0);
  expect(b.maxDeviationSdk, `worst request: ${worst}`).toBeLessThanOrEqual(0.02);
  expect(b.maxDeviationEstimateProviderTools, `worst request: ${worst}`).toBeLessThanOrEqual(0.02);
}

describe("context breakdown on a replayed transcript", () => {
  for (const contextWindow of [32_000, 6_000]) {
    it(`sums to each request's measured size within 2% and names the largest messages (window ${contextWindow})`, async () => {
      const report = await replayTranscript(loadTranscript(transcriptPath(FILE)), { contextWindow });
      expect(report.errors).toEqual([]);
      const b = report.breakdown;
      // every chat request had a breakdown of the same request
      expect(b.requests).toBe(report.replay.chatRequests);
      expect(b.checked).toBe(b.requests);
      if (contextWindow === 6_000) expect(report.compactionCount, "the small window compacts").toBeGreaterThan(0);
      expectWithin2pct(b);
      expect(b.topChecked).toBeGreaterThan(0);
      expect(b.topMatches).toBe(b.topChecked);
      expect(b.top5Checked).toBeGreaterThan(0);
      expect(b.top5Matches).toBeGreaterThanOrEqual(b.top5Checked - 1);
    }, TEST_TIMEOUT_MS);
  }

  it("stays within 2% after aborted replies and after compactions (pi-mono large session, window 32000)", async () => {
    const report = await replayTranscript(loadTranscript(transcriptPath(ABORTS)), { contextWindow: 32_000 });
    expect(report.errors).toEqual([]);
    const b = report.breakdown;
    expect(b.checked).toBe(b.requests);
    expect(report.compactionCount, "the run compacts, so requests are estimated throughout").toBeGreaterThan(0);
    expect(b.requests - b.sdkRequests, "estimated requests").toBeGreaterThan(1);
    expectWithin2pct(b);
    expect(b.topMatches).toBe(b.topChecked);
  }, TEST_TIMEOUT_MS);
});
