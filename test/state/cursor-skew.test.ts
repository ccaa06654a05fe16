/**
 * The cursor must not take a new message for an old one because its timestamp is a little
 * earlier than the last seen message (clock skew, a reply stamped at request time), also on
 * the scan path (a different array than the one the cursor indexed, e.g. the compaction
 * hook's branch messages).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContextState } from "../../src/agents/state/context-state.js";
import { assistant, CONFIG, rmDir, tempDir, toolResult, user } from "./fixtures.js";

let stateDir: string;
beforeEach(async () => (stateDir = await tempDir()));
afterEach(async () => rmDir(stateDir));

describe("cursor and clock skew", () => {
  it("captures a final reply stamped before the tool result it follows", async () => {
    const st = await ContextState.load({ stateDir, sessionKey: "k", sessionId: "s", config: CONFIG });
    const t0 = 1_800_000_000_000;
    const ask = user("Read the notes", t0);
    const call = assistant("", { timestamp: t0 + 10, toolCalls: [{ id: "c1", name: "read", arguments: { path: "notes.md" } }] });
    const result = toolResult("c1", "read", "notes", false, t0 + 20);
    st.captureMessages([ask, call, result]); // the context event before the final LLM call
    const reply = assistant("The notes say hello.", { timestamp: t0 + 5 }); // stamped earlier
    // the compaction hook passes the branch: a different array (extra entry in front)
    st.captureMessages([user("older", t0 - 100_000), ask, call, result, reply]);
    const snap = st.snapshot();
    expect(snap.status).toBe("idle");
    expect(snap.keyExchanges.some((e) => e.role === "agent" && e.gist.includes("The notes say hello."))).toBe(true);
  });

  it("still stops at messages clearly older than the last seen one (O(new))", async () => {
    const st = await ContextState.load({ stateDir, sessionKey: "k", sessionId: "s", config: CONFIG });
    const t0 = 1_800_000_000_000;
    st.captureMessages([user("first", t0), assistant("a1", { timestamp: t0 + 1 })]);
    const before = st.snapshot().messagesSeen;
    // the last seen message is gone (compacted away); only the genuinely new message is processed
    st.captureMessages([user("summary-ish old", t0 - 120_000), user("new question", t0 + 200_000)]);
    expect(st.snapshot().messagesSeen - before).toBe(1);
    expect(st.snapshot().lastUser).toContain("new question");
  });
});

describe("capturing a prefix without a copy (issue 24)", () => {
  it("captureMessages(history, end) message by message leaves the state a slice per message leaves", async () => {
    const t0 = 1_800_000_000_000;
    const history = [];
    for (let i = 0; i < 12; i++) {
      const t = t0 + i * 100;
      history.push(user(`Step ${i}: look at src/mod${i}.ts`, t));
      history.push(assistant("", { timestamp: t + 10, toolCalls: [{ id: `c${i}`, name: i % 3 === 0 ? "bash" : "read", arguments: i % 3 === 0 ? { command: `npm test -- mod${i}` } : { path: `src/mod${i}.ts` } }] }));
      history.push(toolResult(`c${i}`, i % 3 === 0 ? "bash" : "read", i % 4 === 0 ? `Error: mod${i} failed` : `export const v${i} = ${i};`, i % 4 === 0, t + 20));
      // two messages in one millisecond now and then (the cursor's siblings)
      history.push(assistant(`Done with ${i}.`, { timestamp: i % 5 === 0 ? t + 20 : t + 30 }));
    }
    const sliced = await ContextState.load({ stateDir, sessionKey: "k", sessionId: "s", config: { ...CONFIG }, toolResultsFromMessages: { cwd: "/w" } });
    const prefixed = await ContextState.load({ stateDir: `${stateDir}-b`, sessionKey: "k", sessionId: "s", config: { ...CONFIG }, toolResultsFromMessages: { cwd: "/w" } });
    for (let end = 1; end <= history.length; end++) {
      sliced.captureMessages(history.slice(0, end));
      prefixed.captureMessages(history, end);
      expect(prefixed.snapshot()).toEqual(sliced.snapshot());
    }
    // and the whole array afterwards finds nothing new in either
    sliced.captureMessages(history);
    prefixed.captureMessages(history);
    expect(prefixed.snapshot()).toEqual(sliced.snapshot());
    expect(prefixed.snapshot().messagesSeen).toBe(history.length);
    await rmDir(`${stateDir}-b`);
  });
});
