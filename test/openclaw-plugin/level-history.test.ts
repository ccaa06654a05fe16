/**
 * A long-running gateway (issue 40): a chat whose host drops the oldest turns of its history
 * (a history limit) stays at the same size turn after turn while its content moves on. Its 80%
 * checkpoint must follow the content, not only the token count: a turn that takes it over 80%
 * again, long after the first crossing, writes a new one, also when the slot was evicted (or the
 * process restarted) between the turn's assemble and its commit and the reply carries no usage.
 * Driven through the plugin's real entry, each turn on a new engine instance.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { PluginSessionFile } from "../../src/openclaw-plugin/session-file.js";
import type { SessionSlot } from "../../src/openclaw-plugin/session-slot.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { estimateContextTokens } from "../../src/agents/gauge/context-gauge.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { forgetProcessState } from "../helpers/new-process.js";
import { call, prose, reply, result, user } from "./plugin-messages.js";

const WINDOW = 32_000;
const TURN_TOKENS = 2_600;
/** the host keeps the last 8 turns before a new one: ~65% of the window, ~73% with the turn */
const KEPT_TURNS = 8;

/** Turn k: a request, a read of src/mod<k>.ts, its output (`size` times the usual) and a reply. */
function turn(k: number, t0: number, size = 1): AgentMessage[] {
  const t = t0 + k * 10;
  return [user(`Look at src/mod${k}.ts and summarise it`, t), call(`c${k}`, `src/mod${k}.ts`, t + 1), result(`c${k}`, prose(TURN_TOKENS * size, `m${k}w`), t + 2), reply(`src/mod${k}.ts holds the module notes.`, t + 3)];
}

function instance(stateDir: string): ContextEngineShape {
  let engine: ContextEngineShape | null = null;
  registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir }, registerContextEngine: (_id, f) => void (engine = f({ workspaceDir: "/ws" }) as ContextEngineShape) }, async () => ({ ok: true, compacted: false }));
  return engine!;
}

const runtimeContext = { provider: "mock", modelId: "m1", modelContextWindow: WINDOW, tokenBudget: WINDOW };
// the slots held by the keys' Sessions: [session, slot id, slot]
const slots = () => [...sessionRegistry().values()].flatMap((s) => [...s.hostSlots].map(([id, slot]) => [s, id, slot as SessionSlot] as const));

type Between = "nothing" | "its slot lets go of its history" | "its slot is evicted" | "the gateway restarts";

describe("a history the host keeps level: the 80% checkpoint follows what the session did", () => {
  // `grown`: turns before the host starts dropping the oldest; the last of the crossings they
  // write is at the size the late turn's commit reads (the whole history when the commit sees
  // it: 10 turns; the tokens recorded a turn earlier plus the turn after a restart: 11), the
  // case a token count alone took for a repeat
  for (const [between, grown] of [
    ["nothing", 10],
    ["its slot lets go of its history", 11],
    ["its slot is evicted", 11],
    ["the gateway restarts", 11],
  ] as Array<[Between, number]>) {
    it(`a turn that crosses 80% again after 20 turns at the same size writes a new checkpoint (between assemble and commit: ${between})`, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "cm-level-"));
      const key = `agent:main:telegram:direct:level-${between.replace(/\W+/g, "-")}`;
      const sessionId = "s-level";
      const t0 = Date.now() - 1_000_000;
      const turns: AgentMessage[][] = [];
      let history: AgentMessage[] = [];
      async function run(k: number, size = 1, meanwhile: Between = "nothing"): Promise<void> {
        const messages = turn(k, t0, size);
        turns.push(messages);
        let e = instance(stateDir);
        await e.assemble({ sessionId, sessionKey: key, messages: history, tokenBudget: WINDOW, prompt: `Look at src/mod${k}.ts and summarise it` });
        if (meanwhile === "its slot lets go of its history") {
          // what the cache does first when it is over its budget
          for (const [, , slot] of slots()) if (slot.sessionKey === key) slot.shedHistory();
        } else if (meanwhile === "its slot is evicted") {
          for (const [s, k2, slot] of slots()) if (slot.sessionKey === key) s.hostSlots.delete(k2);
        } else if (meanwhile === "the gateway restarts") {
          await e.dispose();
          forgetProcessState();
          e = instance(stateDir);
        }
        await e.commitTurn({ advancementKey: `t${k}`, sessionId, sessionKey: key, messages, runtimeContext });
        await e.dispose();
        history = [...history, ...messages];
      }
      const autos = () => readCheckpointsOnDisk(stateDir, key).filter((c) => c.meta.trigger === "auto-80pct");

      // the history grows over 80% (one crossing at 10 turns, one more 10% later)
      for (let k = 0; k < grown; k++) await run(k);
      const before = autos().length;
      expect(before).toBe(grown - 9);
      // twenty more, the host keeping the last 8 turns: the same size, under 80%, new content
      for (let k = grown; k < grown + 20; k++) {
        history = turns.slice(-KEPT_TURNS).flat();
        await run(k);
      }
      expect(autos()).toHaveLength(before);
      // a turn with twice the output takes it over 80% again
      history = turns.slice(-KEPT_TURNS).flat();
      const last = grown + 20;
      await run(last, 2, between);
      const truth = estimateContextTokens([...history]);
      expect(truth / WINDOW).toBeGreaterThanOrEqual(0.8);
      const recorded = (await new PluginSessionFile(stateDir, key).read()).tokens;
      expect(recorded).toBeGreaterThan(0.95 * truth);
      // the commit gauges the history its assemble saw (only a restart loses it: then the tokens
      // recorded a turn earlier, which still count the turn the host dropped since, plus the turn)
      if (between !== "the gateway restarts") expect(recorded).toBeLessThan(1.05 * truth);
      const all = autos();
      expect(all).toHaveLength(before + 1);
      const latest = all.at(-1)!;
      expect(latest.meta.token_usage.input_tokens).toBeGreaterThan(0.95 * truth);
      // it holds what the session did since the first one: the latest turn's file
      expect(JSON.stringify(latest)).toContain(`src/mod${last}.ts`);
    });
  }

  it("a session whose history only grows still writes one per 5% of growth (the dedup holds)", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-level-"));
    const key = "agent:main:telegram:direct:growing";
    const t0 = Date.now() - 1_000_000;
    let history: AgentMessage[] = [];
    for (let k = 0; k < 10; k++) {
      const messages = turn(k, t0);
      const e = instance(stateDir);
      await e.assemble({ sessionId: "s-grow", sessionKey: key, messages: history, tokenBudget: WINDOW });
      await e.commitTurn({ advancementKey: `t${k}`, sessionId: "s-grow", sessionKey: key, messages, runtimeContext });
      await e.dispose();
      history = [...history, ...messages];
    }
    // the same history again (a retried request, no new message): no second checkpoint
    const e = instance(stateDir);
    await e.assemble({ sessionId: "s-grow", sessionKey: key, messages: history, tokenBudget: WINDOW });
    await e.dispose();
    expect(readCheckpointsOnDisk(stateDir, key).filter((c) => c.meta.trigger === "auto-80pct")).toHaveLength(1);
  });
});
