/**
 * The prompt-cache policy on the OpenClaw plugin route, driven through the plugin's registration
 * as OpenClaw calls it, with a new engine instance per turn (OpenClaw 2026.9): the model the
 * runtime reports picks the rules; each turn's assembled messages hold the previous turn's
 * through its last message (the gauge lines where they were sent); the gauge is in every turn at
 * >= 70% and the 80% checkpoint is written; under `none` the line is the last message again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { beforeEach, describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { AssembleParams, ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { clearCacheSessions } from "../helpers/new-process.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

const KEY = "agent:main:telegram:direct:370";
const WINDOW = 10_000;
const GAUGE_RE = /^\[Context: (\d+)% \|/;

const user = (text: string, t: number) => ({ role: "user", content: text, timestamp: t }) as AgentMessage;
function assistant(text: string, t: number, input: number): AgentMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4",
    usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: t,
  } as AgentMessage;
}

/** A factory per call, as OpenClaw 2026.9 makes an engine instance per turn. */
function pluginWith(config: Record<string, unknown>): { newEngine: () => ContextEngineShape; stateDir: string } {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-plugin-cache-"));
  let factory: ((ctx: unknown) => unknown) | null = null;
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, ...config },
    registerContextEngine: (_id, f) => void (factory = f as (ctx: unknown) => unknown),
    registerTool: () => undefined,
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  return { newEngine: () => factory!({}) as ContextEngineShape, stateDir };
}

const text = (m: AgentMessage) => (typeof (m as { content?: unknown }).content === "string" ? ((m as { content: string }).content) : JSON.stringify((m as { content?: unknown }).content));

/** Ten turns from 72% to 90% of the window; returns each turn's assembled messages. */
async function turns(config: Record<string, unknown>, restartAt = -1) {
  const { newEngine, stateDir } = pluginWith(config);
  const t = Date.now() - 60_000;
  const history: AgentMessage[] = [user("Fix the parser in src/parse.ts", t), assistant("Looking.", t + 1, 7_200)];
  const assembled: AgentMessage[][] = [];
  for (let i = 0; i < 10; i++) {
    if (i === restartAt) clearCacheSessions(); // what a new process holds of the policy: nothing
    const engine = newEngine();
    const params: AssembleParams = {
      sessionId: "s1",
      sessionKey: KEY,
      messages: history.slice(),
      tokenBudget: WINDOW,
      prompt: `step ${i}`,
      model: "claude-sonnet-4",
      runtimeSettings: { model: { provider: "anthropic", resolved: "claude-sonnet-4" } },
    };
    const out = await engine.assemble(params);
    assembled.push(out.messages);
    history.push(user(`step ${i}`, t + 10 + 2 * i), assistant(`done ${i}`, t + 11 + 2 * i, 7_200 + 200 * (i + 1)));
    await engine.afterTurn?.({ sessionId: "s1", sessionKey: KEY, sessionFile: join(stateDir, "s1.jsonl"), messages: history.slice(), prePromptMessageCount: history.length - 2, tokenBudget: WINDOW });
  }
  return { assembled, stateDir };
}

describe("prompt cache on the OpenClaw plugin route", () => {
  beforeEach(() => clearCacheSessions());

  it("auto picks Anthropic from the runtime's model; each turn holds the previous turn's messages; gauge each turn; 80% checkpoint", async () => {
    const { assembled, stateDir } = await turns({});
    for (let i = 0; i < assembled.length; i++) {
      const lines = assembled[i]!.filter((m) => GAUGE_RE.test(text(m)));
      expect(lines.length, `turn ${i}`).toBeGreaterThan(0);
      if (i === 0) continue;
      const prev = assembled[i - 1]!.map((m) => JSON.stringify(m));
      expect(assembled[i]!.map((m) => JSON.stringify(m)).slice(0, prev.length), `turn ${i}`).toEqual(prev);
    }
    // fewer lines than turns: a new one only when the reading moved a step
    expect(assembled.at(-1)!.filter((m) => GAUGE_RE.test(text(m))).length).toBeLessThan(assembled.length);
    expect([...sessionRegistry().values()].at(-1)?.cache?.last).toMatchObject({ family: "anthropic", cold: null });
    expect(readCheckpointsOnDisk(stateDir, KEY).some((c) => c.meta.trigger === "auto-80pct")).toBe(true);
  });

  it("a restarted process: the turn after it has a gauge line and rewrites once; the turns after share the prefix again", async () => {
    const { assembled } = await turns({}, 5);
    const same = (i: number) => {
      const prev = assembled[i - 1]!.map((m) => JSON.stringify(m));
      return JSON.stringify(assembled[i]!.map((m) => JSON.stringify(m)).slice(0, prev.length)) === JSON.stringify(prev);
    };
    expect(same(5)).toBe(false);
    expect(assembled[5]!.some((m) => GAUGE_RE.test(text(m)))).toBe(true);
    for (let i = 6; i < assembled.length; i++) expect(same(i), `turn ${i}`).toBe(true);
  });

  it("none: the gauge is the last message of every turn and no earlier line is kept", async () => {
    const { assembled } = await turns({ promptCache: "none" });
    for (const msgs of assembled) {
      expect(GAUGE_RE.test(text(msgs.at(-1)!))).toBe(true);
      expect(msgs.slice(0, -1).some((m) => GAUGE_RE.test(text(m)))).toBe(false);
    }
  });
});
