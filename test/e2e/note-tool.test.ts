/** The optional context_note tool (config noteTool): off by default, records into the checkpoint when on. */
import { afterEach, describe, expect, it } from "vitest";
import { type Host, makeHost, reply } from "../helpers/host.js";

const KEY = "agent:main:discord:group:42";

describe("context_note tool", () => {
  let host: Host;
  afterEach(() => host?.cleanup());

  it("records a decision, an open item and a learning that the next checkpoint carries", async () => {
    host = await makeHost({ contextManager: { noteTool: true } });
    host.agent.queue(
      reply.tools(
        ["context_note", { kind: "decision", text: "Use SQLite for the cache" }],
        ["context_note", { kind: "open_item", text: "Benchmark the cache on 1M rows" }],
        ["context_note", { kind: "learning", text: "The user wants answers in French" }],
      ),
      reply.text("Noted."),
    );
    await host.runner.handleInbound(KEY, "Let's plan the cache");
    const report = await host.runner.handleInbound(KEY, "/compact");
    const cp = report.compactions[0]!.restore!.checkpoint;
    expect(cp.decisions.map((d) => d.what)).toContain("Use SQLite for the cache");
    expect(cp.open_items).toContain("Benchmark the cache on 1M rows");
    expect(cp.learnings).toContain("The user wants answers in French");
    expect(cp.resources.tools_used).toContain("context_note");
  });

  it("is not offered to the model by default", async () => {
    host = await makeHost();
    host.agent.queue(reply.tools(["context_note", { kind: "decision", text: "x" }]), reply.text("ok"));
    await host.runner.handleInbound(KEY, "hi");
    const report = await host.runner.handleInbound(KEY, "/compact");
    expect(report.compactions[0]!.restore!.checkpoint.decisions).toEqual([]);
  });
});
