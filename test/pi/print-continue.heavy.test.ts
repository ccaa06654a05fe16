/**
 * `pi -p -c`: one prompt per process, continuing the same session file. pi disposes the
 * session when a print run ends while the threshold compaction it started is still running,
 * so the extension's compaction handlers get a stale ctx. Every compaction must still write
 * its checkpoint, and the next process must attach exactly one post-compaction block.
 */
import { afterAll, describe, expect, it } from "vitest";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { compactionSummaries, longQuestion, makePiHome, type PiHome, printTurns, startsWith } from "./pi-env.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

describe("pi -p -c across processes", () => {
  let home: PiHome;
  afterAll(() => home?.cleanup());

  it("writes a checkpoint for every compaction and delivers each post-compaction block once", async () => {
    home = await makePiHome({ settings: { compaction: { enabled: true, reserveTokens: 1000, keepRecentTokens: 600 } } });
    await printTurns(home, [1, 2, 3].map(longQuestion));
    const compactions = compactionSummaries(home).length;
    expect(compactions).toBeGreaterThanOrEqual(1);
    const cps = readCheckpointsOnDisk(home.stateDir, `pi:${home.cwd}`).filter((c) => c.meta.trigger === "compaction");
    expect(cps).toHaveLength(compactions);

    const reqs = home.requests();
    const firstAfterSummary = reqs.findIndex((r, i) => i > 0 && reqs[i - 1]!.kind === "summary" && r.kind === "chat");
    expect(firstAfterSummary).toBeGreaterThan(0);
    for (const r of reqs.slice(firstAfterSummary).filter((q) => q.kind === "chat")) {
      expect(startsWith(r, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(1);
    }
    expect(startsWith(reqs[firstAfterSummary]!, RESTORE_HEADER_POST_COMPACTION)[0]).toContain(cps[0]!.meta.checkpoint_id);
    for (const r of reqs) expect(startsWith(r, RESTORE_HEADER_RESUME)).toHaveLength(0);
  }, 3 * TEST_TIMEOUT_MS);
});
