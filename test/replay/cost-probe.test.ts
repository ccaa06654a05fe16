/**
 * The replay's cost probe on requests shaped as pi-ai hands them to a provider: tool results
 * merged into one user message as pi-ai sends them to Anthropic, our gauge line and aged
 * stand-ins recognised, and the gauge line under pi's breakpoint costing the next request a
 * rewrite that any-prefix caching would not pay.
 */
import { describe, expect, it } from "vitest";
import type { Context } from "@mariozechner/pi-ai";
import { CostProbe, type CostTraceRow } from "../../src/replay/cost-probe.js";
import { STASHED_MARKER } from "../../src/agents/artifacts/preview.js";

const big = (c: string) => c.repeat(8000);
const tools = [{ name: "read", description: "read a file", parameters: { type: "object", properties: {} } }] as unknown as Context["tools"];
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 0 });
const call = (id: string) => ({ role: "assistant" as const, content: [{ type: "toolCall" as const, id, name: "read", arguments: { path: "a.ts" } }], api: "x", provider: "x", model: "x", usage: {} as never, stopReason: "toolUse" as const, timestamp: 0 });
const result = (id: string, text: string) => ({ role: "toolResult" as const, toolCallId: id, toolName: "read", content: [{ type: "text" as const, text }], isError: false, timestamp: 0 });
const gauge = user("[Context: 81% | 52k/64k tokens]");

describe("cost probe", () => {
  it("a gauge line that moves breaks pi's breakpoint chain (every later request rewrites), not the any-prefix model", () => {
    const probe = new CostProbe();
    const history = [user(big("a")), call("c1"), result("c1", big("r"))];
    const ctx = (messages: unknown[]): Context => ({ systemPrompt: big("s"), tools, messages: messages as Context["messages"] });
    probe.onChatRequest(ctx([...history, gauge]), 1_000, 10);
    probe.onChatRequest(ctx([...history, call("c2"), result("c2", "ok"), gauge]), 2_000, 10);
    const { models, clock } = probe.report();
    expect(clock).toBe("transcript");
    expect(models["anthropic-pi"]!.breaks.gauge).toBe(1);
    // the second request reads only tools + system (2,000 tokens of "s"), and rewrites the history
    expect(models["anthropic-pi"]!.readTokens).toBeGreaterThanOrEqual(2000);
    expect(models["anthropic-pi"]!.readTokens).toBeLessThan(2100);
    expect(models["anthropic-any-prefix"]!.readTokens).toBeGreaterThan(6000);
    expect(models["anthropic-pi"]!.dollars).toBeGreaterThan(models["anthropic-any-prefix"]!.dollars);
  });

  it("an aged stand-in replacing a result under the breakpoint is put down to aging; a cold cache (> 5 min) to the TTL", () => {
    const probe = new CostProbe();
    const ctx = (messages: unknown[]): Context => ({ systemPrompt: big("s"), tools, messages: messages as Context["messages"] });
    const head = [user(big("a")), call("c1")];
    probe.onChatRequest(ctx([...head, result("c1", big("r"))]), 0, 10);
    probe.onChatRequest(ctx([...head, result("c1", `${STASHED_MARKER} c1]`), call("c2"), result("c2", "ok")]), 1_000, 10);
    probe.onChatRequest(ctx([...head, result("c1", `${STASHED_MARKER} c1]`), call("c2"), result("c2", "ok"), call("c3"), result("c3", "ok")]), 400_000, 10);
    const pi = probe.report().models["anthropic-pi"]!;
    expect(pi.breaks.aged).toBe(1);
    expect(pi.breaks.ttl).toBe(1);
  });

  it("--trace: one row per request, its tagged tokens and its bill under anthropic-pi", () => {
    const rows: CostTraceRow[] = [];
    const probe = new CostProbe((r) => rows.push(r));
    const history = [user(big("a")), call("c1"), result("c1", big("r"))];
    const ctx = (messages: unknown[]): Context => ({ systemPrompt: big("s"), tools, messages: messages as Context["messages"] });
    probe.onChatRequest(ctx([...history, gauge]), 1_000, 10);
    probe.onChatRequest(ctx([...history, call("c2"), result("c2", "ok"), gauge]), 2_000, 10);
    const pi = probe.report().models["anthropic-pi"]!;
    expect(rows.map((r) => r.request)).toEqual([1, 2]);
    expect(rows[1]!.cause).toBe("gauge");
    expect(rows[1]!.tagged.gauge).toBeGreaterThan(0);
    expect(rows[1]!.messages).toBe(6);
    // the rows add up to the session's bill
    expect(rows.reduce((n, r) => n + r.read, 0)).toBe(pi.readTokens);
    expect(rows.reduce((n, r) => n + r.write, 0)).toBe(pi.writeTokens);
    expect(rows[1]!.read + rows[1]!.write + rows[1]!.uncached).toBe(rows[1]!.tokens);
  });
});
