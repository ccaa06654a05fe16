/**
 * The core-seam route (issue 25) on the real host runner with the compaction-safeguard stand-in:
 * "checkpoint" mode returns our compaction with no summarizer request and no restore block;
 * "host" mode replaces a summary that hangs past `compactionDeadlineMs` (the failing summarizer
 * is test/e2e/compaction-failures.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { COMPACTION_SUMMARY_HEADER, RESTORE_HEADER_POST_COMPACTION } from "../../src/agents/inject/markers.js";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const KEY = "agent:main:discord:group:25";
let host: Host | undefined;
afterEach(() => {
  host?.cleanup();
  host = undefined;
});

async function work(h: Host): Promise<void> {
  h.agent.queue(reply.tools(["write", { path: "new.ts", content: "export function made() {}\n" }]), reply.text("Wrote `made()` in new.ts."));
  await h.runner.handleInbound(KEY, "Write new.ts");
  for (let i = 0; i < 4; i++) {
    h.agent.queue(reply.text(filler(`Answer ${i}`, 2000)));
    await h.runner.handleInbound(KEY, filler(`Question ${i}`, 1000));
  }
}

describe("compaction-safeguard seam", () => {
  it("checkpoint mode: /compact returns our summary, no summarizer request, no restore block", async () => {
    host = await makeHost({ contextManager: { compaction: "checkpoint" } });
    await work(host);
    const report = await host.runner.handleInbound(KEY, "/compact");
    expect(report.compactions).toHaveLength(1);
    expect(report.compactions[0]!.summaryText.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(report.compactions[0]!.summaryText).toContain("new.ts");
    expect(report.compactions[0]!.restore).toBeNull();
    expect(host.agent.summarizerRequests).toHaveLength(0);
    host.agent.queue(reply.text("Continuing."));
    await host.runner.handleInbound(KEY, "go on");
    const texts = requestTexts(host.agent.chatRequests.at(-1)!);
    expect(texts.some((t) => t.includes(COMPACTION_SUMMARY_HEADER))).toBe(true);
    expect(texts.some((t) => t.includes(RESTORE_HEADER_POST_COMPACTION))).toBe(false);
  });

  it("host mode: a summarizer that hangs past compactionDeadlineMs is replaced by the checkpoint compaction", async () => {
    host = await makeHost({ contextManager: { compactionDeadlineMs: 1000 } });
    await work(host);
    host.agent.onSummarize((() => new Promise<AssistantMessage>(() => undefined)) as never);
    const report = await host.runner.handleInbound(KEY, "/compact");
    expect(host.agent.summarizerRequests.length).toBeGreaterThan(0); // it was really asked
    expect(report.compactions).toHaveLength(1);
    expect(report.compactions[0]!.summaryText.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(report.compactions[0]!.restore).toBeNull();
    expect(host.warnings.join("\n")).toMatch(/deadline/);
  }, TEST_TIMEOUT_MS);
});
