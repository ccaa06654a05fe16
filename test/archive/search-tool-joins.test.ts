/**
 * context_search joins the prompt only once the archive holds something (issue 37,
 * engine/session.ts OurToolsState), through a real pi AgentSession (standalone extension, faux model): a
 * session with nothing archived sends no context_search definition on any request; after a
 * compaction archived a span, the next run's requests carry it, it returns the archived text,
 * and it stays for the rest of the session. With smart trim on it joins at the second run's start
 * (or the first's, when that starts past the low mark a trim cuts to; without a cache: from the start).
 */
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { spanArchivesSettled } from "../../src/agents/engine/archive-hooks.js";
import { filler, reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

/** pi filters every tool by this list when one is given */
const TOOLS = ["read", "write", "edit", "bash", "artifact_fetch", "context_search"];
const toolNames = (c: Context) => (c.tools ?? []).map((t) => t.name);

describe("context_search joins when the archive holds something", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("absent before any compaction, present (and working) on every request after one", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { compaction: "checkpoint" }, tools: TOOLS });
    const session = await s.open();
    for (let i = 0; i < 4; i++) {
      s.agent.queue(reply.text(`Noted ${i}. ${filler(`answer${i}`, 4_000)}`));
      await s.prompt(session, `Turn ${i}: remember the zanzibar${i} setting. ${filler(`ask${i}`, 4_000)}`);
    }
    const before = s.agent.chatRequests.length;
    expect(before).toBe(4);
    for (const r of s.agent.chatRequests) {
      expect(toolNames(r)).not.toContain("context_search");
      expect(toolNames(r)).toContain("bash"); // the host's own tools are untouched
    }

    await session.compact();
    await spanArchivesSettled();

    s.agent.queue(reply.tools(["context_search", { query: "zanzibar0 setting" }]), reply.text("Found it."));
    await s.prompt(session, "Which setting did I ask you to remember first?");
    s.agent.queue(reply.text("Still here."));
    await s.prompt(session, "And now?");

    const after = s.agent.chatRequests.slice(before);
    expect(after.length).toBe(3);
    for (const r of after) expect(toolNames(r)).toContain("context_search");
    // the search ran and returned the archived turn
    const result = after[1]!.messages.find((m) => m.role === "toolResult" && m.toolName === "context_search");
    expect(result).toBeDefined();
    expect(JSON.stringify(result!.content)).toContain("zanzibar0");
    expect(s.errors).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("with smart trim on it is absent from a session's first run and joins at the second run's start", async () => {
    s = await makeStandalone({ contextWindow: 64_000, contextManager: { smartTrim: true, promptCache: "anthropic" }, tools: TOOLS });
    const session = await s.open();
    // a one-prompt session with a small context: no trim ahead, nothing archived, no definition on the wire
    s.agent.queue(reply.tools(["bash", { command: "ls" }]), reply.text("Hello."));
    await s.prompt(session, "Hi there, a first question.");
    expect(s.agent.chatRequests.length).toBe(2);
    for (const r of s.agent.chatRequests) expect(toolNames(r)).not.toContain("context_search");
    for (let i = 0; i < 3; i++) {
      s.agent.queue(reply.text(`Noted ${i}.`));
      await s.prompt(session, `Turn ${i}: remember the zanzibar${i} setting.`);
    }
    // from the second run on it is there (a later trim cuts what the agent can search), and stays
    const later = s.agent.chatRequests.slice(2);
    expect(later.length).toBe(3);
    for (const r of later) expect(toolNames(r)).toContain("context_search");
    expect(s.errors).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("with smart trim on, a first run that starts past the low mark a trim cuts to has it (a resumed long history)", async () => {
    s = await makeStandalone({ contextWindow: 64_000, contextManager: { smartTrim: true, promptCache: "anthropic" }, tools: TOOLS });
    const session = await s.open();
    s.agent.queue(reply.text("Read."));
    await s.prompt(session, `Please read this: ${filler("big", 100_000)}`);
    expect(toolNames(s.agent.chatRequests[0]!)).toContain("context_search");
    expect(s.errors).toEqual([]);
  }, TEST_TIMEOUT_MS);

  it("with smart trim on and no cache (promptCache none) it is there from the first request, as before", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { smartTrim: true, promptCache: "none" }, tools: TOOLS });
    const session = await s.open();
    s.agent.queue(reply.text("Hello."));
    await s.prompt(session, "Hi there, a first question.");
    expect(toolNames(s.agent.chatRequests[0]!)).toContain("context_search");
    expect(s.errors).toEqual([]);
  }, TEST_TIMEOUT_MS);
});
