/**
 * One Session per state dir and key (engine/session.ts), in one registry weighed as units
 * (engine/cache-budget.ts): a new engine of the key (one per inbound message) finds the same
 * Session; over the budget the least recent Session is shed first (its SmartTrim goes, its
 * sticky set stays, so its next request leaves out the same messages), then evicted whole.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_SHARES, cacheBudgetBytes, sessionAt, sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { agedMessages } from "../../src/agents/engine/request.js";
import { offloadSettings } from "../../src/agents/artifacts/offload.js";
import { withSmartTrim } from "../../src/agents/engine/request.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";
import { assistantMsg, makeEngine, removeDirs, tempDir, toolCallMsg, toolResultMsg, userMsg } from "../hardening/helpers.js";

const WINDOW = 20_000;
const CONFIG = { smartTrim: true, smartTrimReserveTokens: 2_000, archive: false, offload: true };

/** A session of file reads, ~25k tokens: over safeLimit (~16k) at a 20k window. */
function history(tag: string): AgentMessage[] {
  const out: AgentMessage[] = [userMsg("Hello"), userMsg(`Please review the ledger modules of ${tag} and fix the drift`)];
  for (let i = 0; i < 40; i++) {
    const id = `${tag}_call_${i}`;
    out.push(toolCallMsg(id, "read", { path: `src/${tag}/module${i}.ts` }));
    out.push(toolResultMsg(id, "read", `export const ${tag}_value_${i} = ${i};\n${"// a line of the module body\n".repeat(90)}`));
  }
  return out;
}

const tokensOf = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + estimateTokens(m), 0);

describe("Sessions: one per key, weighed and evicted as units", () => {
  const dirs: string[] = [];
  afterEach(() => {
    sessionRegistry().setBudget(cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions"));
    removeDirs(dirs);
  });

  it("a new engine of the key finds the key's Session: its SmartTrim and aged-output memory", () => {
    const stateDir = tempDir("cm-session-");
    dirs.push(stateDir);
    const key = "agent:main:test:direct:s1";
    const first = makeEngine({ stateDir, sessionKey: key, window: WINDOW, config: CONFIG }).engine;
    const h = history("one");
    expect(withSmartTrim(first, structuredClone(h), tokensOf(h), WINDOW)?.newlyTrimmed.length ?? 0).toBeGreaterThan(0);
    agedMessages(structuredClone(h), first);
    const session = sessionRegistry().peek(`${stateDir}\u0000${first.sessionKey}`)!;
    const trim = session.heldTrim;
    expect(trim).not.toBeNull();
    const next = makeEngine({ stateDir, sessionKey: key, window: WINDOW, config: CONFIG }).engine;
    expect(sessionAt(stateDir, next.sessionKey)).toBe(session);
    withSmartTrim(next, structuredClone(h), tokensOf(h), WINDOW);
    expect(session.heldTrim).toBe(trim);
    // the aged-output memory the request used (warmed on it), kept with the key
    const settings = offloadSettings(next.runtime.config);
    const aged = session.agedOffload(settings);
    expect(aged.warmed).toBe(true);
    agedMessages(structuredClone(h), next);
    expect(session.agedOffload(settings)).toBe(aged);
  });

  it("over the budget the least recent Session is shed (same messages left out next), then evicted whole", async () => {
    const stateDir = tempDir("cm-session-");
    dirs.push(stateDir);
    const engineOf = (k: string) => makeEngine({ stateDir, sessionKey: `agent:main:test:direct:${k}`, window: WINDOW, config: CONFIG }).engine;
    // (an engine's request log reads its Session's phrase: the ids are taken before the requests)
    const ids = { a: `${stateDir}\u0000${engineOf("a").sessionKey}`, b: `${stateDir}\u0000${engineOf("b").sessionKey}` };
    const idOf = (k: "a" | "b") => ids[k];
    const a = history("a");
    const r1 = withSmartTrim(engineOf("a"), structuredClone(a), tokensOf(a), WINDOW)!;
    expect(r1.newlyTrimmed.length).toBeGreaterThan(0);
    const b = history("b");
    withSmartTrim(engineOf("b"), structuredClone(b), tokensOf(b), WINDOW);
    await new Promise<void>((resolve) => setImmediate(resolve)); // the relevance indexes fill off the request path
    // the same requests again: weighed with their indexes, b the most recent
    withSmartTrim(engineOf("a"), structuredClone(a), tokensOf(a), WINDOW);
    withSmartTrim(engineOf("b"), structuredClone(b), tokensOf(b), WINDOW);
    const sa = sessionRegistry().peek(idOf("a"))!;
    const sb = sessionRegistry().peek(idOf("b"))!;
    // room for b whole and a without its SmartTrim (its sticky set and small memories)
    const room = sb.approxBytes() + 16 * 1024;
    expect(sa.approxBytes() + sb.approxBytes()).toBeGreaterThan(room);
    sessionRegistry().setBudget(cacheBudgetBytes({ cacheMemoryMiB: room / (2 ** 20 * CACHE_SHARES.sessions) }, "sessions"));
    expect(sessionRegistry().peek(idOf("a"))).toBe(sa);
    expect(sa.heldTrim).toBeNull();
    expect(sb.heldTrim).not.toBeNull();
    // a's next request, one message more: the same messages left out, the prefix identical
    const more = [...a, assistantMsg([{ type: "text", text: "The drift is in module 3." }])];
    const r2 = withSmartTrim(engineOf("a"), structuredClone(more), tokensOf(r1.messages) + 20, WINDOW)!;
    expect(r2.newlyTrimmed).toHaveLength(0);
    expect(JSON.stringify(r2.messages.slice(0, r1.messages.length))).toBe(JSON.stringify(r1.messages));
    // one byte: only the most recent Session (a's) is kept
    sessionRegistry().setBudget(cacheBudgetBytes({ cacheMemoryMiB: 1 / 2 ** 20 }, "sessions"));
    expect(sessionRegistry().peek(idOf("b"))).toBeUndefined();
    expect(sessionRegistry().peek(idOf("a"))).toBe(sa);
  });
});
