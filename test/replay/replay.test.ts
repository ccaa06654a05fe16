/**
 * CI smoke test: the two short SWE-agent transcripts replay through the real
 * host runner without errors, and the checkpoints remember every modified file
 * and every tool failure. At a small window the first one compacts mid-run,
 * and the restore block must carry the last user request.
 */
import { describe, expect, it } from "vitest";
import { loadTranscript } from "../../src/replay/transcript.js";
import { replayTranscript } from "../../src/replay/replayer.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { transcriptPath } from "../helpers/transcripts.js";

const SHORT = [
  "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.json",
  "SWE-agent__SWE-agent__pydicom__pydicom-1458.json",
];

describe("transcript replay smoke test", () => {
  for (const file of SHORT) {
    it(`replays ${file} with full recall of modified files and tool failures`, async () => {
      const report = await replayTranscript(loadTranscript(transcriptPath(file)));
      expect(report.errors).toEqual([]);
      expect(report.replay.toolResultsDelivered).toBe(report.recorded.toolResults);
      expect(report.fidelity).not.toBeNull();
      expect(report.fidelity!.modifiedFiles.expected).toBeGreaterThan(0);
      expect(report.fidelity!.modifiedFiles.recall).toBe(1);
      expect(report.fidelity!.toolFailures.recall).toBe(1);
      expect(report.handler.n).toBeGreaterThan(0);
    }, TEST_TIMEOUT_MS);
  }

  it("compacts at a small window and the restore block carries the last user request", async () => {
    const report = await replayTranscript(loadTranscript(transcriptPath(SHORT[0]!)), { contextWindow: 6_000 });
    expect(report.errors).toEqual([]);
    const natural = report.compactions.filter((c) => !c.final);
    expect(natural.length).toBeGreaterThan(0);
    for (const c of natural) {
      expect(c.restoreTokens).not.toBeNull();
      expect(c.lastUserInRestore).toBe(true);
      expect(c.fidelity?.modifiedFiles.recall).toBe(1);
      // ground truth can be recomputed from the transcript: how far the replay had got, and the text
      expect(c.deliveredMessages).toBeGreaterThan(0);
      expect(c.restoreText).toContain("[Post-compaction checkpoint restore]");
      expect(c.fidelityV2?.tokens).toBeLessThanOrEqual(800);
    }
    // archive recall is measured on every replay (numbers in docs/archive.md)
    expect(report.recall).not.toBeNull();
    expect(report.recall!.segmentsArchived).toBeGreaterThan(0);
    if (report.recall!.autoBlock.tokens.n > 0) expect(report.recall!.autoBlock.tokens.max).toBeLessThanOrEqual(report.recall!.autoBlock.capTokens);
    const delivered = report.compactions.map((c) => c.deliveredMessages);
    expect(delivered).toEqual([...delivered].sort((a, b) => a - b));
  }, TEST_TIMEOUT_MS);
});
