/**
 * The context breakdown on a replayed real transcript (issue 27): at every chat request of the
 * replay (the real host runner, the faux model), the breakdown the context manager computed for
 * the request sums to what the faux model counted of what it was sent within 2%, and its
 * largest items are the largest messages. The count is the faux model's (src/faux/faux-model.ts),
 * not the breakdown's. At a small window the run compacts, so requests estimated throughout (no
 * usable usage after a compaction) are checked too. All transcripts: `npm run replay` and
 * docs/benchmarks.md#context-breakdown.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTranscript } from "../../src/replay/transcript.js";
import { replayTranscript } from "../../src/replay/replayer.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const TRANSCRIPTS = resolve(import.meta.dirname, "../../../shared/transcripts");
const FILE = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.json";
const available = existsSync(join(TRANSCRIPTS, FILE));
if (!available) console.warn(`[breakdown replay test] skipped: ${FILE} not found under ${TRANSCRIPTS} (../shared is absent)`);

describe.skipIf(!available)("context breakdown on a replayed transcript", () => {
  for (const contextWindow of [32_000, 6_000]) {
    it(`sums to each request's measured size within 2% and names the largest messages (window ${contextWindow})`, async () => {
      const report = await replayTranscript(loadTranscript(join(TRANSCRIPTS, FILE)), { contextWindow });
      expect(report.errors).toEqual([]);
      const b = report.breakdown;
      const worst = JSON.stringify(b.worst);
      // every chat request had a breakdown of the same request
      expect(b.requests).toBe(report.replay.chatRequests);
      expect(b.checked).toBe(b.requests);
      if (contextWindow === 6_000) expect(report.compactionCount, "the small window compacts").toBeGreaterThan(0);
      // reconciled with a reply's usage: against the faux model's own count (the one its usage
      // reports) and against the request with tools as a provider gets them (name, description, parameters)
      expect(b.sdkRequests).toBeGreaterThan(0);
      expect(b.maxDeviationSdk, `worst request: ${worst}`).toBeLessThanOrEqual(0.02);
      expect(b.maxDeviationSdkProviderTools, `worst request: ${worst}`).toBeLessThanOrEqual(0.02);
      // estimated throughout (before the first reply, after a compaction): chars/4 leaves out the
      // provider's framing per message (docs/benchmarks.md#context-breakdown-issue-27): a few %
      expect(b.maxDeviationEstimateProviderTools, `worst request: ${worst}`).toBeLessThanOrEqual(0.06);
      expect(b.topChecked).toBeGreaterThan(0);
      expect(b.topMatches).toBe(b.topChecked);
      expect(b.top5Checked).toBeGreaterThan(0);
      expect(b.top5Matches).toBeGreaterThanOrEqual(b.top5Checked - 1);
    }, TEST_TIMEOUT_MS);
  }
});
