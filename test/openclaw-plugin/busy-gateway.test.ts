/**
 * A busy gateway (issue 24): many chats in one process, each turn on a new engine instance, more
 * keys than the caches hold. A session whose slot, aged-output memory and archive tail were
 * evicted (or whose process restarted) between its assemble and its commit must still gauge its
 * whole history and write its 80% checkpoint: it continues from what is on disk, in O(turn).
 * Driven through the plugin's real entry (registerContextManagerPlugin), usage-free histories
 * (a provider that reports none), so the gauge reads the messages themselves.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { PluginSessionFile } from "../../src/openclaw-plugin/session-file.js";
import { estimateContextTokens } from "../../src/agents/gauge/context-gauge.js";
import { archiveWorker } from "../../src/agents/archive/worker/archive-client.js";
import { DEFAULT_ARCHIVE_LIMITS } from "../../src/agents/archive/archive.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { forgetProcessState } from "../helpers/new-process.js";
import { call, prose, reply, result, user } from "./plugin-messages.js";

const WINDOW = 32_000;
// the smallest budget: the Sessions' share (8.5 MiB, the plugin's slots in it) holds ~125 chats of
// 2,000 tokens, so 180 other chats evict the oldest Session and its slot (as 64, the count cap
// this replaced, did)
const CONFIG = { cacheMemoryMiB: 16 };

/** A session of `turns` turns, each a request, a read of a file, its output and a reply. */
function session(turns: number, tokensPerTurn: number, t0: number): Array<{ start: number; end: number; messages: AgentMessage[] }> {
  const out: Array<{ start: number; end: number; messages: AgentMessage[] }> = [];
  const all: AgentMessage[] = [];
  for (let k = 0; k < turns; k++) {
    const t = t0 + k * 10;
    const turn = [user(`Look at src/mod${k}.ts and summarise it`, t), call(`c${k}`, `src/mod${k}.ts`, t + 1), result(`c${k}`, prose(tokensPerTurn, `m${k}w`), t + 2), reply(`src/mod${k}.ts holds the module notes.`, t + 3)];
    out.push({ start: all.length, end: all.length + turn.length, messages: turn });
    all.push(...turn);
  }
  return out.map((x) => ({ ...x, messages: all.slice(0, x.end) }));
}

function instance(stateDir: string): ContextEngineShape {
  let engine: ContextEngineShape | null = null;
  registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir, ...CONFIG }, registerContextEngine: (_id, f) => void (engine = f({ workspaceDir: "/ws" }) as ContextEngineShape) }, async () => ({ ok: true, compacted: false }));
  return engine!;
}

const runtimeContext = { provider: "mock", modelId: "m1", modelContextWindow: WINDOW, tokenBudget: WINDOW };

async function assemble(stateDir: string, key: string, before: AgentMessage[]) {
  const e = instance(stateDir);
  await e.assemble({ sessionId: `s-${key}`, sessionKey: key, messages: before, tokenBudget: WINDOW });
  return e;
}

async function commit(e: ContextEngineShape, key: string, turn: AgentMessage[], advancementKey: string) {
  await e.commitTurn({ advancementKey, sessionId: `s-${key}`, sessionKey: key, messages: turn, runtimeContext });
  await e.dispose();
}

/** Other chats of the gateway take turns: every cache of the process moves on. */
async function otherChats(stateDir: string, n: number, t0: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const key = `agent:main:telegram:direct:other${i}`;
    const [one] = session(1, 2_000, t0 + i * 100);
    const e = await assemble(stateDir, key, []);
    await commit(e, key, one!.messages, "t1");
  }
}

const autoCheckpoints = (stateDir: string, key: string) => readCheckpointsOnDisk(stateDir, key).filter((c) => c.meta.trigger === "auto-80pct");

describe("a busy gateway: sessions evicted from every cache keep their history", () => {
  for (const [what, evict] of [
    ["180 other chats took turns meanwhile", "chats"],
    ["the gateway restarted meanwhile", "restart"],
  ] as const) {
    it(`a turn committed after its assemble, when ${what}: the whole history's gauge and the 80% checkpoint`, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "cm-busy-"));
      const key = `agent:main:telegram:direct:${evict}`;
      // 9 turns of ~2,600 tokens: ~74% of the window before the last turn, ~82% after it
      const turns = session(10, 2_600, Date.now() - 1_000_000);
      for (const [k, t] of turns.slice(0, 9).entries()) await commit(await assemble(stateDir, key, t.messages.slice(0, t.start)), key, t.messages.slice(t.start), `t${k}`);
      const before = new PluginSessionFile(stateDir, key);
      const last = turns[9]!;
      const truthBefore = estimateContextTokens(last.messages.slice(0, last.start));
      expect(truthBefore / WINDOW).toBeLessThan(0.8);
      expect((await before.read()).tokens).toBeGreaterThan(0.95 * truthBefore);
      expect(autoCheckpoints(stateDir, key)).toHaveLength(0);

      let e = await assemble(stateDir, key, last.messages.slice(0, last.start));
      if (evict === "chats") {
        const slots = () => (globalThis as unknown as Record<symbol, { stats(): { evictions: number } }>)[Symbol.for("openclaw.contextManager.sessions")]!;
        const before = slots().stats().evictions;
        await otherChats(stateDir, 180, Date.now() - 500_000);
        // least recently used first: this key's slot, assembled before all 180, went
        expect(slots().stats().evictions).toBeGreaterThan(before);
      }
      else {
        // the turn's commit reaches a new process (the host replays its durable turn there)
        await e.dispose();
        forgetProcessState();
        e = instance(stateDir);
      }
      await commit(e, key, last.messages.slice(last.start), "t9");

      const truth = estimateContextTokens(last.messages);
      expect(truth / WINDOW).toBeGreaterThanOrEqual(0.8);
      const recorded = (await new PluginSessionFile(stateDir, key).read()).tokens;
      expect(recorded).toBeGreaterThan(0.95 * truth);
      expect(recorded).toBeLessThan(1.05 * truth);
      const autos = autoCheckpoints(stateDir, key);
      expect(autos).toHaveLength(1);
      expect(autos[0]!.meta.token_usage.input_tokens).toBeGreaterThan(0.95 * truth);
      // the capture kept the session's earlier turns too (files read in turn 1 and turn 10)
      const files = JSON.stringify(autos[0]);
      expect(files).toContain("src/mod0.ts");
      expect(files).toContain("src/mod9.ts");
    });
  }

  it("the archive answers from the worker thread, and an append never loads the archive", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-busy-"));
    const key = "agent:main:telegram:direct:archive";
    const turns = session(3, 300, Date.now() - 100_000);
    for (const [k, t] of turns.entries()) await commit(await assemble(stateDir, key, t.messages.slice(0, t.start)), key, t.messages.slice(t.start), `t${k}`);
    const reply = await archiveWorker().call("search", { stateDir, sessionKey: key, limits: DEFAULT_ARCHIVE_LIMITS, query: "src/mod1.ts", limit: 3 });
    expect(archiveWorker().mode).toBe("worker");
    expect(reply.ready).toBe(true);
    expect(reply.size).toBeGreaterThanOrEqual(12);
    expect(reply.hits[0]!.record.target ?? reply.hits[0]!.record.text).toContain("src/mod1.ts");
  });
});
