/**
 * `/context` inside the real pi (RPC mode): the gauge, the latest checkpoint and the restore
 * block it would inject, as a displayed custom message that is never sent to the model.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RESTORE_HEADER_POST_COMPACTION } from "../../src/agents/inject/markers.js";
import { makePiHome, PI, type PiHome } from "./pi-env.js";
import { PiRpc } from "./rpc-client.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

describe("/context in pi", () => {
  let home: PiHome;
  let rpc: PiRpc | undefined;
  afterAll(async () => {
    await rpc?.close();
    home?.cleanup();
  });

  it("shows gauge, latest checkpoint and restore block; the model never sees the report", async () => {
    home = await makePiHome({ window: 4000, replyChars: 200, settings: { compaction: { enabled: false } } });
    rpc = new PiRpc(PI, home.baseArgs(), { cwd: home.cwd, env: home.env });
    await rpc.command({ type: "prompt", message: `Review: ${"check every module boundary ".repeat(480)}` });
    const from = rpc.eventCount;
    await rpc.command({ type: "prompt", message: "/context" });
    const end = await rpc.waitFor((e) => e.type === "message_end" && (e.message as { customType?: string })?.customType === "context-report", from);
    const report = String((end.message as { content: string }).content);
    expect(report).toMatch(/^\[context-manager\] session key pi:/);
    expect(report).toMatch(/Gauge: \[Context: \d+% \| \dk\/4k tokens\]/);
    expect(report).toMatch(/Latest checkpoint: cp_001 \(auto-80pct, .+, this session\)/);
    expect(report).toContain(`Restore block (none due now; this is how cp_001 renders as post-compaction`);
    expect(report).toContain(RESTORE_HEADER_POST_COMPACTION);
    // the breakdown of what the next request holds: the bar, the table, the largest item
    expect(report).toMatch(/\n\[[A-Za-z?]+\.*\] U user messages/);
    expect(report).toMatch(/\nContext breakdown: \dk tokens \(\d+% of 4k\) · 3 messages · provider-reported/);
    expect(report).toMatch(/\n {2}user messages +\dk +\d+%/);
    expect(report).toMatch(/\nLargest:\n {2}1\. user "Review: check every module boundary/);
    expect(report).toMatch(/\nHeadroom: 80% checkpoint (passed by|\d+ left)/);
    // the first request: nothing cached before it; labelled by the rules in use (the faux
    // provider is no Anthropic one: `promptCache: auto` picks automatic prefix caching)
    expect(report).toMatch(/\nLast request: cache reuse ~0% of [\d,]+ tokens \(estimate: automatic prefix caching, OpenAI rules\)\n/);

    await rpc.command({ type: "prompt", message: "Next." });
    const last = home.requests().at(-1)!;
    expect(last.texts.at(-1)).not.toContain("[context-manager]");
    expect(last.texts.some((t) => t.includes("session key pi:"))).toBe(false);
    // the gauge line stays where it was sent (issue 37): the next request reads the history up to
    // the previous request's breakpoint from the cache; nothing broke it
    const from2 = rpc.eventCount;
    await rpc.command({ type: "prompt", message: "/context" });
    const end2 = await rpc.waitFor((e) => e.type === "message_end" && (e.message as { customType?: string })?.customType === "context-report", from2);
    const reuse = /\nLast request: cache reuse ~(\d+)% of [\d,]+ tokens \([^)]*\)\n/.exec(String((end2.message as { content: string }).content));
    expect(reuse, "a cache-reuse line without a break").not.toBeNull();
    expect(Number(reuse![1])).toBeGreaterThan(50);
    expect(rpc.stderr).not.toMatch(/Extension error/);
  }, TEST_TIMEOUT_MS);
});
