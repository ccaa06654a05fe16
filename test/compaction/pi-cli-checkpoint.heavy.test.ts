/**
 * "checkpoint" compaction mode in the real pi CLI (issue 25): `pi -p -c` (one process per
 * prompt, pi may dispose the session while the threshold compaction runs) and `pi --mode rpc`
 * with manual `compact`. The faux recorder logs every request: none may be a summary request,
 * every compaction entry holds our summary, and no restore block follows it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_HEADER, RESTORE_HEADER_POST_COMPACTION } from "../../src/agents/inject/markers.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { bigPrompt, compactionSummaries, longQuestion, makePiHome, PI, type PiHome, printTurns, startsWith } from "../pi/pi-env.js";
import { PiRpc } from "../pi/rpc-client.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const settings = (compaction: Record<string, unknown>) => ({
  compaction,
  contextManager: { compaction: "checkpoint", compactionSummaryMaxTokens: 500 },
});

describe("checkpoint compaction in the pi CLI", () => {
  const homes: PiHome[] = [];
  let rpc: PiRpc | undefined;
  afterAll(async () => {
    await rpc?.close();
    for (const h of homes) h.cleanup();
  });

  it("pi -p -c: every compaction is ours, no summary request, no restore block", async () => {
    const home = await makePiHome({ settings: settings({ enabled: true, reserveTokens: 1000, keepRecentTokens: 600 }) });
    homes.push(home);
    await printTurns(home, [1, 2, 3].map(longQuestion));
    const summaries = compactionSummaries(home);
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    for (const s of summaries) expect(s.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    const cps = readCheckpointsOnDisk(home.stateDir, `pi:${home.cwd}`).filter((c) => c.meta.trigger === "compaction");
    expect(cps).toHaveLength(summaries.length);
    const reqs = home.requests();
    expect(reqs.filter((r) => r.kind === "summary")).toHaveLength(0);
    for (const r of reqs) expect(startsWith(r, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(0);
    // the request after a compaction carries the summary instead
    expect(reqs.some((r) => r.texts.some((t) => t.includes(COMPACTION_SUMMARY_HEADER)))).toBe(true);
  }, 3 * TEST_TIMEOUT_MS);

  it("pi --mode rpc: manual compact twice, each summary ours, bounded, no summary request", async () => {
    const home = await makePiHome({ window: 32_000, replyChars: 400, settings: settings({ enabled: true, reserveTokens: 2000, keepRecentTokens: 2000 }) });
    homes.push(home);
    rpc = new PiRpc(PI, home.baseArgs(), { cwd: home.cwd, env: home.env });
    await rpc.command({ type: "prompt", message: bigPrompt("First") });
    await rpc.command({ type: "prompt", message: bigPrompt("Second") });
    await rpc.command({ type: "compact" });
    await rpc.command({ type: "prompt", message: "Third, short." });
    await rpc.command({ type: "prompt", message: bigPrompt("Fourth") });
    await rpc.command({ type: "compact" });
    await rpc.command({ type: "prompt", message: "Fifth, short." });
    const last = home.requests().at(-1)!;
    const summaries = last.texts.filter((t) => t.includes(COMPACTION_SUMMARY_HEADER));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.length).toBeLessThanOrEqual(500 * 4 + 200); // pi wraps the summary in a short frame
    expect(summaries[0]).toContain("Fourth");
    expect(startsWith(last, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(0);
    expect(home.requests().filter((r) => r.kind === "summary")).toHaveLength(0);
    expect(readCheckpointsOnDisk(home.stateDir, `pi:${home.cwd}`).filter((c) => c.meta.trigger === "compaction")).toHaveLength(2);
    expect(rpc.stderr).not.toMatch(/Extension error/);
  }, 3 * TEST_TIMEOUT_MS);
});
