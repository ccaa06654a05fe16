/**
 * The context breakdown on a real pi AgentSession (standalone extension, real read / bash / edit /
 * write tools on a temp workspace, the faux model): for every request the model received, the
 * categories sum to what the provider counted for that request (pi-ai's faux usage: chars/4 of
 * its serialization of system prompt, messages and tool schemas) within 2%, both the raw
 * estimate and the reconciled total; the largest items are the largest messages of that
 * request; aged offload's cut shows; the checkpoint records the breakdown.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { fauxPromptTokens, messageText } from "../../src/faux/faux-model.js";
import { sessionForView } from "../../src/agents/pi-extensions/context-manager.js";
import type { ContextBreakdown } from "../../src/agents/checkpoint/schema.js";
import { reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { breakdownLines } from "../../src/cli/breakdown-status.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const TOOLS = ["read", "write", "edit", "bash"];

function source(name: string, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export function ${name}${i}(x: number): number { return x * ${i} + ${lines}; } // step ${i}`).join("\n") + "\n";
}

/** chars of a provider-side message as the faux provider serializes it (for "largest") */
function fauxChars(m: Context["messages"][number]): number {
  if (m.role === "assistant") return m.content.map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : `${b.name}:${JSON.stringify(b.arguments)}`)).join("\n").length;
  return messageText(m as { role: string; content?: unknown }).length;
}

describe("context breakdown on a real AgentSession", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("sums to the measured request within 2% at every request; top items are the largest messages", async () => {
    s = await makeStandalone({ contextWindow: 60_000, tools: TOOLS, contextManager: { offloadAgeTurns: 2 } });
    writeFileSync(join(s.cwd, "big.ts"), source("big", 60));
    writeFileSync(join(s.cwd, "mid.ts"), source("mid", 25));
    writeFileSync(join(s.cwd, "small.ts"), source("small", 4));
    const session = await s.open();
    const engine = async () => (await sessionForView({ sessionManager: session.sessionManager, cwd: s.cwd, contextWindow: () => 60_000 }))?.engine ?? null;
    const checks: Array<{ measured: number; b: ContextBreakdown; context: Context }> = [];
    const pending: Array<Promise<void>> = [];
    s.agent.onChat((context) => {
      // faux serializes pi's whole tool objects (label, executionMode too); a provider gets name, description, parameters
      const tools = context.tools?.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
      const measured = fauxPromptTokens({ ...context, tools });
      const copy = structuredClone({ messages: context.messages }) as Context;
      pending.push(
        engine().then((e) => {
          const b = e!.requests.breakdown({ contextWindow: 60_000, checkpointThreshold: 0.8 });
          checks.push({ measured, b: b!, context: copy });
        }),
      );
    });
    s.agent.queue(
      reply.tools(["read", { path: "big.ts" }]),
      reply.tools(["bash", { command: "cat mid.ts; echo done" }]),
      reply.text("I read both files."),
    );
    await s.prompt(session, "Read big.ts and mid.ts and tell me what they do.");
    s.agent.queue(
      reply.tools(["edit", { path: "small.ts", edits: [{ oldText: "small0", newText: "tiny0" }] }]),
      reply.tools(["write", { path: "notes.md", content: `# Notes\n${"the big file multiplies by its index. ".repeat(40)}` }]),
      reply.tools(["read", { path: "small.ts" }]),
      reply.text("Edited small.ts and wrote notes.md."),
    );
    await s.prompt(session, "Rename small0 to tiny0 and write notes.");
    s.agent.queue(reply.tools(["bash", { command: "ls -la; wc -l big.ts mid.ts" }]), reply.text("Listed."));
    await s.prompt(session, "List the files.");
    await Promise.all(pending);

    expect(checks.length).toBeGreaterThanOrEqual(8);
    for (const { measured, b, context } of checks) {
      const sum = Object.values(b.categories).reduce((a, n) => a + (n ?? 0), 0);
      expect(sum).toBe(b.total_tokens);
      expect(Math.abs(b.total_tokens - measured) / measured).toBeLessThan(0.02);
      // the raw estimate leaves out the provider's framing per message ("role:", separators): a few %
      expect(Math.abs(b.estimated_tokens - measured) / measured).toBeLessThan(0.06);
      expect(b.categories.system_prompt).toBeGreaterThan(0);
      expect(b.categories.tool_definitions).toBeGreaterThan(0);
      expect(b.tool_definitions_by_tool.map((t) => t.tool).sort()).toEqual([...TOOLS].sort());
      // the largest item is the largest message the provider saw
      const sizes = context.messages.map(fauxChars);
      const biggest = sizes.indexOf(Math.max(...sizes));
      const top = context.messages[biggest]!;
      expect(b.largest[0]!.role).toBe(top.role);
      if (top.role === "toolResult") expect(b.largest[0]!.tool).toBe(top.toolName);
    }
    const last = checks.at(-1)!.b;
    expect(last.source).toBe("sdk");
    expect(last.categories.tool_results).toBeGreaterThan(0);
    expect(last.tool_results_by_tool.map((t) => t.tool)).toEqual(expect.arrayContaining(["read", "bash"]));
    // big.ts's read is aged by then (2 turns): its stand-in is a handle, and the cut is counted
    expect(last.removed.aged_offload.items).toBeGreaterThan(0);
    expect(last.removed.aged_offload.tokens).toBeGreaterThan(500);
    expect(last.categories.handles).toBeGreaterThan(0);
    expect(last.largest.some((x) => x.target === "big.ts")).toBe(true);
    expect(last.headroom.to_checkpoint).toBe(48_000 - last.total_tokens);
    expect(last.headroom.to_compaction).toBe(60_000 - 16_384 - last.total_tokens);
  }, TEST_TIMEOUT_MS);
});

describe("checkpoint meta records the breakdown", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("the 80% checkpoint carries the request's breakdown", async () => {
    s = await makeStandalone({ contextWindow: 8_000, tools: TOOLS, contextManager: { offload: false } });
    writeFileSync(join(s.cwd, "big.ts"), source("big", 300));
    const session = await s.open();
    s.agent.queue(reply.tools(["read", { path: "big.ts" }]), reply.text("Read it."));
    await s.prompt(session, "Read big.ts.");
    s.agent.queue(reply.text("ok"));
    await s.prompt(session, "Continue.");
    const cps = readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`);
    const cp = cps.find((c) => c.meta.trigger === "auto-80pct");
    expect(cp, "an auto-80pct checkpoint").toBeDefined();
    const b = cp!.meta.breakdown!;
    expect(b).toBeDefined();
    expect(Object.values(b.categories).reduce((a, n) => a + (n ?? 0), 0)).toBe(b.total_tokens);
    expect(b.largest[0]).toMatchObject({ role: "toolResult", tool: "read", target: "big.ts" });
    // and the request's estimated cache reuse, which `status --breakdown` shows (issue 37)
    expect(b.cache_reuse?.prompt_tokens).toBeGreaterThan(0);
    // labelled by the rules the request was prepared for (the faux provider: automatic prefix caching)
    expect(b.cache_reuse?.rules).toBe("openai");
    expect(breakdownLines(cp!, cp!).at(-1)).toMatch(/^ {2}Last request: cache reuse ~\d+% of [\d,]+ tokens \(estimate: automatic prefix caching, OpenAI rules\)/);
  }, TEST_TIMEOUT_MS);
});
