/**
 * Smart trim on a gateway with many keys (engine/request.ts): a key's sticky trimmed set
 * survives other keys' requests, however many, and survives its SmartTrim being evicted from
 * the process cache by memory: its next request leaves out the same messages, so the prompt
 * prefix is byte-identical.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { withSmartTrim } from "../../src/agents/engine/request.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { assistantMsg, makeEngine, removeDirs, tempDir, toolCallMsg, toolResultMsg, userMsg } from "../hardening/helpers.js";

const WINDOW = 20_000;
const CONFIG = { smartTrim: true, smartTrimReserveTokens: 2_000, archive: false };

/** A session of file reads, ~25k tokens: over safeLimit (~16k) at a 20k window. */
function history(tag: string, reads = 40): AgentMessage[] {
  // (recall-query.ts reads the user's requests from index 1 on)
  const out: AgentMessage[] = [userMsg("Hello"), userMsg(`Please review the ledger modules of ${tag} and fix the drift`)];
  for (let i = 0; i < reads; i++) {
    const id = `${tag}_call_${i}`;
    out.push(toolCallMsg(id, "read", { path: `src/${tag}/module${i}.ts` }));
    out.push(toolResultMsg(id, "read", `export const ${tag}_value_${i} = ${i};\n${"// a line of the module body\n".repeat(90)}`));
  }
  return out;
}

const tokensOf = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + estimateTokens(m), 0);
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("smart trim across many keys", () => {
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  /** Key 0 trims; `others` keys then make requests; key 0's next request (one message more, under safeLimit) is returned. */
  async function scenario(others: number, config: Record<string, unknown>, otherReads: number) {
    const stateDir = tempDir("cm-trim-keys-");
    dirs.push(stateDir);
    const engineOf = (k: number) => makeEngine({ stateDir, sessionKey: `agent:main:test:direct:trim${k}`, window: WINDOW, config: { ...CONFIG, ...config } }).engine;
    const first = history("alpha");
    // pi hands each request a structuredClone of the history: identity is never relied on
    const r1 = withSmartTrim(engineOf(0), structuredClone(first), tokensOf(first), WINDOW);
    expect(r1?.newlyTrimmed.length ?? 0).toBeGreaterThan(0);
    for (let k = 1; k <= others; k++) {
      const h = history(`key${k}`, otherReads);
      withSmartTrim(engineOf(k), structuredClone(h), 100, WINDOW); // under safeLimit: nothing trimmed, the key's SmartTrim made
      await tick(); // its relevance index fills (and weighs) off the request path
    }
    const heldBefore = (sessionRegistry().peek(`${stateDir}\0${engineOf(0).sessionKey}`)?.heldTrim ?? undefined) !== undefined;
    const next = [...first, assistantMsg([{ type: "text", text: "The drift is in module 3." }])];
    const sentBefore = r1!.messages;
    const r2 = withSmartTrim(engineOf(0), structuredClone(next), tokensOf(sentBefore) + 20, WINDOW);
    return { sentBefore, r2, heldBefore };
  }

  it("more than 64 keys: the first key's next request leaves out the same messages (identical prefix)", async () => {
    const { sentBefore, r2 } = await scenario(70, {}, 1);
    expect(r2).not.toBeNull();
    expect(r2!.newlyTrimmed).toHaveLength(0);
    const sent = r2!.messages;
    expect(sent).toHaveLength(sentBefore.length + 1);
    expect(JSON.stringify(sent.slice(0, sentBefore.length))).toBe(JSON.stringify(sentBefore));
  });

  it("its SmartTrim evicted by the memory budget: the sticky set is kept, the prefix is identical", async () => {
    // 16 MiB: the Sessions' share (53%, 8.5 MiB, the plugin's slots in it) holds fewer than 240 of these keys' relevance indexes
    const { sentBefore, r2, heldBefore } = await scenario(240, { cacheMemoryMiB: 16 }, 40);
    expect(heldBefore).toBe(false); // the first key's SmartTrim was evicted
    expect(r2).not.toBeNull();
    const sent = r2!.messages;
    expect(JSON.stringify(sent.slice(0, sentBefore.length))).toBe(JSON.stringify(sentBefore));
  });
});
