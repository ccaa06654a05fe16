/**
 * The age aging runs at under each cache rule, through the real Pi SDK (a standalone pi
 * AgentSession on the faux model), with the defaults: under Anthropic's breakpoint rules a
 * result is shown as handle + preview once the assistant turn that read it is over (the swap
 * lies within the provider's lookback, next to the previous request's entry), under `none` it
 * stays whole until `offloadAgeTurns` (4) assistant turns follow it, as before the cache policy.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { clearCacheSessions } from "../helpers/new-process.js";
import { agingAgeUnder } from "../../src/agents/cache/cache-rules.js";
import { cacheRulesFor } from "../../src/agents/cache/cache-rules.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";
import { reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

const STAND_IN = "[tool output stored off the prompt:";

/** ~4 KB: over the aged threshold, under the fresh stash */
function midLog(tag: string): string {
  const lines: string[] = [];
  for (let i = 1; i <= 120; i++) lines.push(`${tag} line ${String(i).padStart(3, "0")} fine`);
  return `${lines.join("\n")}\n`;
}

const resultIsStandIn = (c: Context) => c.messages.some((m) => m.role === "toolResult" && JSON.stringify(m).includes(STAND_IN));

describe("aged offload's age under the prompt-cache rules (defaults)", () => {
  let s: Standalone | undefined;
  beforeEach(() => clearCacheSessions());
  afterEach(async () => {
    await s?.cleanup();
    s = undefined;
  });

  async function run(promptCache: string) {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { promptCache, searchTool: false }, tools: ["bash", "artifact_fetch"] });
    writeFileSync(join(s.cwd, "AAA.log"), midLog("AAA"));
    const seen: Context[] = [];
    const aging: Array<string | null> = [];
    s.agent.onChat((c) => {
      seen.push(structuredClone({ messages: c.messages }) as Context);
      aging.push([...sessionRegistry().values()].at(-1)?.cache?.last.aging ?? null);
    });
    const sess = await s.open();
    s.agent.queue(reply.tools(["bash", { command: "cat AAA.log" }]), reply.text("read it"));
    await s.prompt(sess, "read AAA.log");
    // one assistant turn ("read it") stands after the result now
    for (const text of ["next", "and next", "again", "once more"]) {
      s.agent.queue(reply.text(`ok: ${text}`));
      await s.prompt(sess, text);
    }
    expect(s.errors).toEqual([]);
    return { seen, aging };
  }

  it("anthropic: the result is swapped on the request after the turn that read it, and stays swapped", async () => {
    const { seen, aging } = await run("anthropic");
    expect(seen.length).toBe(6);
    // request 2 (index 1) still needs it: the model is answering it
    expect(resultIsStandIn(seen[1]!)).toBe(false);
    // request 3: the "read it" turn is over; the swap re-reads request 1's entry (within the lookback)
    expect(resultIsStandIn(seen[2]!)).toBe(true);
    expect(aging[2]).toBe("lookback");
    for (let i = 3; i < seen.length; i++) expect(resultIsStandIn(seen[i]!), `request ${i}`).toBe(true);
  });

  it("none: the result stays whole until four assistant turns follow it, as before", async () => {
    const { seen } = await run("none");
    // turns after the result: request 3 has 1, request 4 has 2, request 5 has 3, request 6 has 4
    for (const i of [2, 3, 4]) expect(resultIsStandIn(seen[i]!), `request ${i}`).toBe(false);
    expect(resultIsStandIn(seen[5]!)).toBe(true);
  });

  it("the age: promptCacheAgeTurns under the breakpoint rules, offloadAgeTurns otherwise; aging off stays off", () => {
    const cfg = DEFAULT_CONTEXT_MANAGER_CONFIG;
    const of = (family: "anthropic" | "openai" | "none", c: Partial<typeof cfg> = {}) => agingAgeUnder(cacheRulesFor({ ...cfg, promptCache: family }, undefined), { ...cfg, ...c });
    expect(of("anthropic")).toBe(1);
    expect(of("openai")).toBe(4);
    expect(of("none")).toBe(4);
    expect(of("anthropic", { promptCacheAgeTurns: 3 })).toBe(3);
    expect(of("anthropic", { promptCacheAgeTurns: 0 })).toBe(4);
    expect(of("anthropic", { offloadAgeTurns: 0 })).toBe(0);
  });
});
