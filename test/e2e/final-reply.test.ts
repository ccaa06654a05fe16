/**
 * The run's final reply has no `context` event after it: it is captured at `agent_end`, so a
 * session left right after an answer (/new here; a crash or exit the same) resumes as answered,
 * with the agent's last report, and not with "Continue: <the request it already answered>".
 */
import { describe, expect, it } from "vitest";
import { makeHost, reply, requestTexts } from "../helpers/host.js";

const KEY = "agent:main:telegram:direct:77";

describe("final reply of a run", () => {
  it("/new right after an answer: the resume block carries the answer and no stale next action", async () => {
    const host = await makeHost({ contextWindow: 16_000, reserveTokens: 2_000, keepRecentTokens: 3_000 });
    try {
      host.write("app.ts", "export const x = 1;\n");
      host.agent.queue(reply.tools(["read", { path: "app.ts" }]), reply.text("Checked: x is 1, nothing to change."));
      await host.runner.handleInbound(KEY, "check app.ts please");
      await host.runner.handleInbound(KEY, "/new");
      host.agent.queue(reply.text("ok"));
      await host.runner.handleInbound(KEY, "Let's continue");
      const block = requestTexts(host.agent.chatRequests.at(-1)!).join("\n");
      expect(block).toContain("[Session resume checkpoint restore]");
      expect(block).toContain(`Agent's last report: "Checked: x is 1, nothing to change."`);
      expect(block).toContain("Status: idle");
      expect(block).not.toContain("Continue: check app.ts please");
    } finally {
      host.cleanup();
    }
  });
});
