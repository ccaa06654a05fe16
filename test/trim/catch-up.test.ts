/**
 * SmartTrim.catchUp: a long history read for the first time (a restart, an eviction with its
 * sticky set handed over) is read in slices that yield the event loop, and leaves the same
 * state as one pass: the next request sends exactly what a SmartTrim that read it at once sends.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";
import { CATCH_UP_SLICE, SmartTrim, type TrimSettings } from "../../src/agents/trim/smart-trim.js";
import { assistantMsg, toolCallMsg, toolResultMsg, userMsg } from "../hardening/helpers.js";

function history(n: number): AgentMessage[] {
  const out: AgentMessage[] = [userMsg("Hello"), userMsg("Please review the ledger modules and fix the drift in module 7")];
  for (let i = 0; out.length < n; i++) {
    const id = `call_${i}`;
    out.push(toolCallMsg(id, "read", { path: `src/ledger/module${i}.ts` }));
    out.push(toolResultMsg(id, "read", `export const value_${i} = ${i};\n${"// a line of the module body\n".repeat(20 + (i % 7) * 10)}`));
    if (i % 9 === 0) out.push(assistantMsg([{ type: "text", text: `Module ${i} looks fine.` }]));
  }
  return out.map((m, i) => ({ ...m, timestamp: 1_700_000_000_000 + i }) as AgentMessage);
}

const tokensOf = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + estimateTokens(m), 0);
const settings = (messages: readonly AgentMessage[]): TrimSettings => ({ safeLimit: Math.floor(tokensOf(messages) / 2), headroom: 0.3, keepRecent: 6, marker: true });

describe("SmartTrim.catchUp", () => {
  it.each([false, true])("reads a long history in slices that yield, then decides as one pass would (sticky set handed over: %s)", async (handed) => {
    const all = history(1_500);
    const s = settings(all);
    const { query, requestAt } = recallQueryOf(all);
    // a first SmartTrim trims part of the history; its sticky set may be handed to the next ones
    const first = new SmartTrim();
    first.apply({ messages: all.slice(0, 1_200), tokens: 0, query, requestAt }, s);
    first.relevance.flush();
    const sticky = first.apply({ messages: all.slice(0, 1_200), tokens: tokensOf(all.slice(0, 1_200)), query, requestAt }, s);
    expect(sticky.newlyTrimmed.length).toBeGreaterThan(0);
    const sliced = new SmartTrim(handed ? new Set(first.stickySet) : undefined);
    const onePass = new SmartTrim(handed ? new Set(first.stickySet) : undefined);
    expect(sliced.needsCatchUp(all)).toBe(true);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await sliced.catchUp(all);
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(Math.floor(all.length / CATCH_UP_SLICE) - 1); // the event loop ran between slices
    expect(sliced.needsCatchUp(all)).toBe(false);
    // the index caught up the same in both, so only the reading of the history can differ
    onePass.apply({ messages: all, tokens: 0, query, requestAt }, s);
    sliced.relevance.flush();
    onePass.relevance.flush();
    const req = { messages: all, tokens: tokensOf(all), query, requestAt };
    const a = sliced.apply(req, s);
    const b = onePass.apply(req, s);
    expect(a.newlyTrimmed.length).toBeGreaterThan(0);
    expect(a.messages).toEqual(b.messages);
    expect(a.newlyTrimmed).toEqual(b.newlyTrimmed);
    expect(a.newTokens).toBe(b.newTokens);
    expect([...sliced.stickySet].sort()).toEqual([...onePass.stickySet].sort());
  });

  it("estimates what it drops from the request's own messages, not from those the catch-up read, once they changed (aged results)", async () => {
    const all = history(1_500);
    const s = settings(all);
    const { query, requestAt } = recallQueryOf(all);
    const sliced = new SmartTrim();
    const onePass = new SmartTrim();
    await sliced.catchUp(all);
    onePass.apply({ messages: all, tokens: 0, query, requestAt }, s);
    sliced.relevance.flush();
    onePass.relevance.flush();
    // the request after: another array (pi clones the history), the old results swapped for a preview as aged offload does
    const aged = all.map((m, i) => (m.role === "toolResult" && i < 1_000 ? { ...m, content: [{ type: "text", text: "[aged output: preview]" }] } : m)) as AgentMessage[];
    const req = { messages: aged, tokens: tokensOf(all), query, requestAt };
    const a = sliced.apply(req, s);
    const b = onePass.apply(req, s);
    expect(a.newlyTrimmed.length).toBeGreaterThan(0);
    expect(a.newTokens).toBe(b.newTokens);
    expect(a.newTokens).toBe(tokensOf(a.newlyTrimmed)); // the aged sizes, not the sizes the catch-up read
    expect(a.newlyTrimmed).toEqual(b.newlyTrimmed);
    expect(a.messages).toEqual(b.messages);
  });
});
