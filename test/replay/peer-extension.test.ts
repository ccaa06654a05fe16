/**
 * The replay's peer mode (`--peer-extension`, bench/peer-compaction.ts): a pi extension loaded
 * from its path compacts instead of us, through the real host runner and pi's extension loader,
 * and our manager contributes nothing (no checkpoint, no restore block, no summarizer call).
 * The stand-in peer (fixtures/stand-in-peer.ts) replaces pi-vcc, which is not in CI.
 */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { loadTranscript } from "../../src/replay/transcript.js";
import { replayTranscript } from "../../src/replay/replayer.js";
import { loadPeerExtension, peerSummaryOf } from "../../src/replay/peer-extension.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { transcriptPath } from "../helpers/transcripts.js";

const REPO = resolve(import.meta.dirname, "../..");
const PEER = resolve(import.meta.dirname, "fixtures/stand-in-peer.ts");
const TRANSCRIPT = "SWE-agent__SWE-agent__marshmallow-code__marshmallow-1867.json";

describe("peer extension", () => {
  it("loads through pi's loader and summarizes a session given as messages, with pi's preparation", async () => {
    const peer = await loadPeerExtension(PEER);
    expect(peer.handlers.get("session_before_compact")).toHaveLength(1);
    const msgs = [
      { role: "user", content: "first request", timestamp: 1 },
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "a.ts", content: "x" } }], api: "faux", provider: "faux", model: "faux", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: 2 },
      { role: "toolResult", toolCallId: "c1", toolName: "write", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 3 },
      { role: "user", content: "second request", timestamp: 4 },
    ] as unknown as AgentMessage[];
    // keepRecentTokens 1: pi's cut keeps only the last request, the write is before it
    const text = await peerSummaryOf(peer, msgs, 1);
    expect(text).toContain("[stand-in peer summary]");
    expect(text).toContain("modified a.ts");
    expect(text).toContain("last request: second request");
  });

  it("a missing peer path is a clear error", async () => {
    await expect(loadPeerExtension(join(REPO, "no-such-peer"))).rejects.toThrow(/peer extension not found/);
  });

  it("compacts a replayed session instead of us: its summary measured, nothing of ours added", async () => {
    const report = await replayTranscript(loadTranscript(transcriptPath(TRANSCRIPT)), { contextWindow: 6_000, peerExtension: PEER });
    expect(report.errors).toEqual([]);
    expect(report.compactionMode).toBe("peer");
    expect(report.peerExtension).toBe(PEER);
    expect(report.compactions.filter((c) => !c.final).length).toBeGreaterThan(0);
    for (const c of report.compactions) {
      expect(c.summaryText.startsWith("[stand-in peer summary]")).toBe(true);
      expect(c.restoreText).toBeNull();
      expect(c.fidelityV2).not.toBeNull();
      expect(c.fidelityV2!.tokens).toBe(Math.ceil(c.summaryText.length / 4));
    }
    // what the agent saw at the next request (summary + kept messages) is measured too
    const natural = report.compactions.filter((c) => !c.final);
    expect(natural.every((c) => c.visibleAfter !== null)).toBe(true);
    expect(natural.every((c) => c.visibleAfter!.lastRequests.found === c.visibleAfter!.lastRequests.expected)).toBe(true);
    expect(report.checkpoints).toEqual([]);
    expect(report.replay.summarizerRequests).toBe(0);
    expect(report.recall).toBeNull();
  }, TEST_TIMEOUT_MS);
});
