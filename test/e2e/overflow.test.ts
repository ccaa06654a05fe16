/**
 * Overflow recovery through the real host: the faux model answers with a
 * provider context-overflow error (an Anthropic-style "prompt is too long",
 * which pi-ai's isContextOverflow recognizes), pi compacts and retries, and the
 * runner reports trigger "overflow" and enqueues the restore block — a path
 * OpenClaw core does not inject on by itself.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { peekSystemEvents } from "../../src/auto-reply/system-events.js";
import { filler, type Host, makeHost, reply, requestTexts } from "../helpers/host.js";

const KEY = "agent:main:main";

let host: Host | undefined;
afterEach(() => {
  host?.cleanup();
  host = undefined;
});

describe("context overflow from the provider", () => {
  it("pi compacts and retries; the runner reports trigger overflow and enqueues the restore block", async () => {
    host = await makeHost();
    host.write("spec.md", "# spec\n");
    host.agent.queue(reply.tools(["read", { path: "spec.md" }]), reply.text("Read spec.md."));
    await host.runner.handleInbound(KEY, "Read spec.md");
    for (let i = 0; i < 5; i++) {
      host.agent.queue(reply.text(filler(`Answer ${i}`, 2000)));
      await host.runner.handleInbound(KEY, filler(`Question ${i}`, 1000));
    }
    expect(host.events.some((e) => e.type === "compaction")).toBe(false);

    const chatBefore = host.agent.chatRequests.length;
    host.agent.queue(
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "prompt is too long: 210000 tokens > 200000 maximum" }),
      reply.text("Recovered after compaction."),
    );
    const report = await host.runner.handleInbound(KEY, "One more question");
    expect(report.compactions.map((c) => c.trigger)).toEqual(["overflow"]);
    const restore = report.compactions[0]!.restore!;
    expect(restore).not.toBeNull();
    expect(restore.checkpoint.meta.trigger).toBe("compaction");
    expect(restore.checkpoint.resources.files_read).toContain("spec.md");
    // the retry ran on the compacted context and got the real answer
    expect(host.agent.chatRequests.length).toBe(chatBefore + 2);
    expect(host.agent.summarizerRequests.length).toBe(1);
    expect(peekSystemEvents(KEY)).toEqual([restore.text]);

    host.agent.queue(reply.text("ok"));
    await host.runner.handleInbound(KEY, "continue");
    const req = host.agent.chatRequests.at(-1)!;
    const lastUser = requestTexts(req).filter((t, i) => req.messages[i]!.role === "user" && !t.startsWith("[Context: ")).at(-1)!;
    expect(lastUser).toMatch(/^System: \[[0-9T:-]+Z\] \[Post-compaction checkpoint restore\]/);
    expect(lastUser.endsWith("continue")).toBe(true);
    expect(peekSystemEvents(KEY)).toEqual([]);
  });
});
