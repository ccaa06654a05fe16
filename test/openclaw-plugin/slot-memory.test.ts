/**
 * What a session slot keeps alive is what the slot cache weighs (issue 24: caches sized by memory
 * must be honest). A slot evicted from the cache must take its engine (the request log's history,
 * the captured state) with it: no other process cache may hold the engine, or the memory budget
 * counts a slot that is gone while its history stays in the heap.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import v8 from "node:v8";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import type { SessionSlot } from "../../src/openclaw-plugin/session-slot.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const user = (text: string, t: number): AgentMessage => ({ role: "user", content: text, timestamp: t }) as AgentMessage;
const call = (id: string, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `cat notes-${id}.txt` } }], api: "openai-completions", provider: "mock", model: "m1", stopReason: "toolUse", timestamp: t }) as unknown as AgentMessage;
const result = (id: string, text: string, t: number): AgentMessage => ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: t }) as AgentMessage;
const reply = (text: string, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "mock", model: "m1", stopReason: "stop", timestamp: t }) as unknown as AgentMessage;

function history(turns: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let k = 0; k < turns; k++) {
    const t = 1_700_000_000_000 + k * 10;
    // outputs long enough to be stashed for aging: the aged-output memory of the key is made
    out.push(user(`Summarise notes ${k}`, t), call(`c${k}`, t + 1), result(`c${k}`, `note ${k} line of the release notes `.repeat(400), t + 2), reply(`Notes ${k} summarised.`, t + 3));
  }
  return out;
}

// the slots held by the keys' Sessions, each with the map it is held in
const slotEntries = () => [...sessionRegistry().values()].flatMap((s) => [...s.hostSlots].map(([id, slot]) => [id, { value: slot as SessionSlot, map: s.hostSlots }] as const));

describe("an evicted slot's memory", () => {
  it("is freed: the key's aged-output memory, which outlives the slot, does not hold its engine", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-slot-memory-"));
    let factory: ((ctx: unknown) => unknown) | null = null;
    // registerTool: aged offload needs its fetch tool
    registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir }, registerContextEngine: (_id, f) => void (factory = f as (ctx: unknown) => unknown), registerTool: () => undefined }, async () => ({ ok: true, compacted: false }));
    const all = history(12);
    const key = "agent:main:telegram:direct:slot-memory";
    const engine = factory!({ workspaceDir: "/ws" }) as ContextEngineShape;
    await engine.assemble({ sessionId: "s1", sessionKey: key, messages: all.slice(0, 44), tokenBudget: 200_000, prompt: "Summarise notes 11" });
    await engine.commitTurn({ advancementKey: "t1", sessionId: "s1", sessionKey: key, messages: all.slice(44), runtimeContext: { modelContextWindow: 200_000, tokenBudget: 200_000 } });
    await engine.dispose();
    const mine = slotEntries().filter(([, e]) => e.value.sessionKey === key);
    expect(mine).toHaveLength(1);
    const held = new WeakRef(mine[0]![1].value.engine);
    expect(held.deref()!.requests.latest).not.toBeNull();
    // the aged-output memory of the key is still cached (it is kept apart from the slot)
    const aged = (globalThis as unknown as Record<symbol, { size: number }>)[Symbol.for("openclaw.contextManager.sessions")]!;
    expect(aged.size).toBeGreaterThan(0);
    await held.deref()!.flushNow();
    mine[0]![1].map.delete(mine[0]![0]);
    mine.length = 0;
    for (let i = 0; i < 20 && held.deref(); i++) {
      await new Promise((r) => setTimeout(r, 20));
      gc();
    }
    expect(held.deref()).toBeUndefined();
  });
});
