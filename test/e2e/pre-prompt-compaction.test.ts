/**
 * A session left above the compaction threshold (here: a run with compaction
 * off) is compacted BEFORE the next prompt, so the restore block rides on that
 * very prompt instead of arriving one turn late.
 */
import { afterAll, describe, expect, it } from "vitest";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";

const KEY = "agent:main:slack:channel:C1";

describe("pre-prompt compaction in the runner", () => {
  let host: Host;
  afterAll(() => host?.cleanup());

  it("compacts first and sends the restore block with the same prompt", async () => {
    host = await makeHost({ contextWindow: 16_000, reserveTokens: 2_000, keepRecentTokens: 3_000 });
    const noCompaction = host.makeRunner({ compactionEnabled: false });
    for (let i = 0; i < 16; i++) {
      host.agent.queue(reply.text(filler(`Answer ${i}`, 2400)));
      const r = await noCompaction.handleInbound(KEY, filler(`Question ${i}`, 1600));
      expect(r.compactions).toEqual([]);
    }
    const report = await host.runner.handleInbound(KEY, "What is the status?");
    expect(report.compactions.map((c) => c.trigger)).toEqual(["threshold"]);
    expect(report.compactions[0]!.restore).not.toBeNull();
    const sent = requestTexts(host.agent.chatRequests.at(-1)!).filter((t) => !t.startsWith("[Context: ")).at(-1)!;
    expect(sent).toMatch(/^System: \[[0-9T:-]+Z\] \[Post-compaction checkpoint restore\]/);
    expect(sent.endsWith("What is the status?")).toBe(true);
  });
});
