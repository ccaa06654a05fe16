/**
 * The breakdown's memo of tool call sizes across requests (breakdown/call-sizes.ts): each
 * request brings fresh copies of the messages (pi structuredClones them), so calls are found by
 * position and timestamp, not identity. A message whose content changed since (a rewritten
 * call, a result cut by a host, a reply aged, messages dropped by smart trim) must be measured
 * as it is now: every breakdown here equals one computed with no memo at all, also when a new
 * engine of the same session key (OpenClaw: one per inbound message) takes the sizes over.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { computeBreakdown } from "../../src/agents/breakdown/compute.js";
import { CallSizes } from "../../src/agents/breakdown/call-sizes.js";
import { MESSAGE_FRAMING_CHARS } from "../../src/agents/text/token-estimate.js";
import { RequestLog } from "../../src/agents/engine/request-log.js";
import { cacheBudgetBytes, sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";

const user = (text: string, ts: number) => ({ role: "user", content: [{ type: "text", text }], timestamp: ts }) as AgentMessage;
const call = (id: string, args: object, ts: number) =>
  ({ role: "assistant", content: [{ type: "text", text: "on it" }, { type: "toolCall", id, name: "write", arguments: args }], stopReason: "toolUse", timestamp: ts }) as unknown as AgentMessage;
const result = (id: string, text: string, ts: number) => ({ role: "toolResult", toolCallId: id, toolName: "write", content: [{ type: "text", text }], isError: false, timestamp: ts }) as AgentMessage;

/** a history of `n` write calls, each with its result */
function history(n: number): AgentMessage[] {
  const out: AgentMessage[] = [user("start", 1)];
  for (let i = 0; i < n; i++) out.push(call(`c${i}`, { path: `src/f${i}.ts`, content: "x".repeat(100 + i * 10) }, 10 + 2 * i), result(`c${i}`, "ok ".repeat(20 + i), 11 + 2 * i));
  return out;
}

const settings = { contextWindow: 100_000, checkpointThreshold: 0.8, host: { systemPrompt: "sys", tools: [] } };
const chars = (args: object) => "write".length + JSON.stringify(args).length;

/** The breakdown with the session's memo, checked against one with none. */
function measured(calls: CallSizes, messages: AgentMessage[], sent = messages) {
  const aging = sent === messages ? null : { unaged: messages, sent };
  const withMemo = computeBreakdown({ ...settings, messages: sent, aging, calls });
  const fresh = computeBreakdown({ ...settings, messages: sent, aging });
  expect(withMemo).toEqual(fresh);
  return withMemo;
}

describe("tool call sizes remembered across requests", () => {
  it("finds unchanged calls in fresh copies without stringifying them again", () => {
    const calls = new CallSizes();
    const h = history(30);
    measured(calls, structuredClone(h));
    const before = calls.stringified;
    expect(before).toBe(30);
    // the next request: fresh copies, two new messages
    measured(calls, structuredClone([...h, call("c30", { path: "new.ts", content: "y" }, 500), result("c30", "ok", 501)]));
    expect(calls.stringified - before).toBe(1);
  });

  it("measures a call rewritten under the same id as it is now, not from the memo", () => {
    const calls = new CallSizes();
    const h = history(30);
    const first = measured(calls, structuredClone(h));
    const next = structuredClone(h);
    const shorter = { path: "src/f7.ts", content: "x" };
    (next[15] as unknown as { content: Array<{ arguments: object }> }).content[1]!.arguments = shorter;
    const b = measured(calls, next);
    const was = { path: "src/f7.ts", content: "x".repeat(170) };
    // the tool_calls category is the calls as they are now (chars/4, rounded; no usage here)
    const callChars = (m: AgentMessage[]) => m.filter((x) => x.role === "assistant").reduce((n, x) => n + chars((x as unknown as { content: Array<{ arguments?: object }> }).content[1]!.arguments!) + MESSAGE_FRAMING_CHARS, 0);
    expect(Math.abs(b.categories.tool_calls! - callChars(next) / 4)).toBeLessThan(1);
    expect(callChars(h) - callChars(next)).toBe(chars(was) - chars(shorter));
    expect(b.categories.tool_calls).toBeLessThan(first.categories.tool_calls!);
  });

  it("measures a result cut by the host and a reply aged since as they are now", () => {
    const calls = new CallSizes();
    const h = history(20);
    measured(calls, structuredClone(h));
    const next = structuredClone(h);
    // a host cut result 10's text (same message: role, time, call id)
    (next[10] as unknown as { content: Array<{ text: string }> }).content[0]!.text = "ok";
    // and aged offload swapped reply 5's arguments for a stand-in (sent differs from unaged there)
    const sent = next.map((m, i) => (i === 11 ? ({ ...m, content: [{ type: "toolCall", id: "c5", name: "write", arguments: { path: "src/f5.ts", content: "[stored: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]" } }] } as unknown as AgentMessage) : m));
    const b = measured(calls, next, sent);
    expect(b.removed.aged_offload.items).toBe(1);
    expect(b.categories.handles).toBeGreaterThan(0);
    // the next request after that: still the same as measured from scratch
    measured(calls, structuredClone(next), structuredClone(sent));
  });

  it("finds its place again after messages were dropped (smart trim) and after a compaction", () => {
    const calls = new CallSizes();
    const h = history(40);
    measured(calls, structuredClone(h));
    const trimmed = structuredClone(h);
    trimmed.splice(5, 30, { role: "custom", customType: "context-manager-trim", content: "[trimmed]", display: false, timestamp: 13 } as AgentMessage);
    const before = calls.stringified;
    measured(calls, trimmed);
    expect(calls.stringified).toBe(before); // the calls left were all found
    // a compaction: a summary first, the history after it with new times
    const compacted = [{ role: "compactionSummary", summary: "s".repeat(400), tokensBefore: 9000, timestamp: 900 } as unknown as AgentMessage, ...history(5).map((m) => ({ ...m, timestamp: m.timestamp + 1000 }) as AgentMessage)];
    (compacted[2] as unknown as { content: Array<{ arguments: object }> }).content[1]!.arguments = { path: "other.ts", content: "z".repeat(999) };
    measured(calls, compacted);
  });
});

/**
 * The sizes live per session key, process-wide (engine/cache-budget.ts): OpenClaw's runner
 * makes a new engine, so a new RequestLog, for every inbound message. A new log of the key finds
 * the calls its predecessor sized, and still measures what changed in between as it is now.
 */
describe("tool call sizes kept per session key across engines", () => {
  const logSettings = { contextWindow: 100_000, checkpointThreshold: 0.8 };
  const host = { systemPrompt: "sys", tools: () => [] };
  const record = (messages: AgentMessage[]) => ({ unaged: messages, sent: messages, final: messages, host, tokens: 1, contextWindow: 100_000 });
  /** a new log of `key` (a new engine), one request, its calls sized after it: its breakdown */
  const nextEngine = (key: string, messages: AgentMessage[]) => {
    const log = new RequestLog(key);
    log.record(record(messages));
    log.warmCalls();
    return log.breakdown(logSettings)!;
  };
  const noMemo = (messages: AgentMessage[]) => computeBreakdown({ ...settings, messages, aging: { unaged: messages, sent: messages } });

  it("sizes no call twice across engines, and measures a call rewritten or a result cut in between as it is now", () => {
    const key = `test-key-${Math.random()}`;
    const h = history(30);
    expect(nextEngine(key, structuredClone(h))).toEqual(noMemo(h));
    const sizes = sessionRegistry().peek(key)!.breakdown.calls!;
    expect(sizes.stringified).toBe(30);
    // the next inbound message: a new engine, fresh copies, one new call
    const more = [...h, call("c30", { path: "new.ts", content: "y" }, 500), result("c30", "ok", 501)];
    expect(nextEngine(key, structuredClone(more))).toEqual(noMemo(more));
    expect(sizes.stringified).toBe(31);
    // then a host rewrote call 7 under its id and cut result 10 before the next run
    const changed = structuredClone(more);
    (changed[15] as unknown as { content: Array<{ arguments: object }> }).content[1]!.arguments = { path: "src/f7.ts", content: "x" };
    (changed[10] as unknown as { content: Array<{ text: string }> }).content[0]!.text = "ok";
    const b = nextEngine(key, changed);
    expect(b).toEqual(noMemo(changed));
    expect(b.total_tokens).toBeLessThan(noMemo(more).total_tokens);
    expect(sizes.stringified).toBe(32); // the rewritten call only
  });

  it("an evicted key sizes its history again, with the same breakdown", () => {
    const [a, b] = [`test-key-a-${Math.random()}`, `test-key-b-${Math.random()}`];
    const h = history(20);
    try {
      sessionRegistry().setBudget(cacheBudgetBytes({ cacheMemoryMiB: 1 / 2 ** 20 }, "sessions")); // one byte: only the newest key is kept
      nextEngine(a, structuredClone(h));
      nextEngine(b, structuredClone(h));
      expect(sessionRegistry().peek(a)?.breakdown.calls).toBeUndefined();
      expect(nextEngine(a, structuredClone(h))).toEqual(noMemo(h));
      expect(sessionRegistry().peek(a)!.breakdown.calls!.stringified).toBe(20);
    } finally {
      sessionRegistry().setBudget(cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions"));
    }
  });
});

/**
 * What a key's sizes weigh (issue 27): 12 bytes per reply with calls and 8 per call, no ids
 * kept, so a few hundred long sessions fit the default share (with ~128 bytes per call, ~40 keys
 * of 900 messages did, and 200 keys in turn evicted each other).
 */
describe("tool call sizes per key: compact", () => {
  const logSettings = { contextWindow: 100_000, checkpointThreshold: 0.8 };
  const host = { systemPrompt: "sys", tools: () => [] };
  const record = (messages: AgentMessage[]) => ({ unaged: messages, sent: messages, final: messages, host, tokens: 1, contextWindow: 100_000 });

  it("weighs 12 bytes per reply and 8 per call (plus ~1 KB), and 200 keys of 450 calls (~900 messages) all stay", () => {
    const h = history(450);
    const log = new RequestLog(`test-key-compact-${Math.random()}`);
    log.record(record(structuredClone(h)));
    log.warmCalls();
    log.breakdown(logSettings);
    const one = new CallSizes();
    one.main.append(h);
    expect(one.approxBytes()).toBeLessThanOrEqual(1200 + 450 * 12 + 450 * 8);
    expect(Math.floor(cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions") / one.approxBytes())).toBeGreaterThanOrEqual(300);
    // 200 keys, round robin twice: the second round sizes nothing again
    const keys = Array.from({ length: 200 }, (_, i) => `test-key-rr-${i}-${Math.random()}`);
    for (const k of keys) {
      const l = new RequestLog(k);
      l.record(record(h));
      l.warmCalls();
    }
    for (const k of keys) {
      const l = new RequestLog(k);
      l.record(record(structuredClone(h)));
      l.warmCalls();
      l.breakdown(logSettings);
      expect(sessionRegistry().peek(k)?.breakdown.calls?.stringified).toBe(450);
    }
  });
});

/**
 * Which sent messages are aging's stand-ins, found by walking the sent array alongside the final
 * one (breakdown/compute.ts AgedLookup): the steps after aging drop, add and replace messages; a
 * stand-in is counted as a handle wherever it ends up, and a message not in `sent` never is.
 */
describe("aged stand-ins in a request changed after aging", () => {
  it("counts each stand-in as a handle after drops, insertions and a reorder-free trim", () => {
    const h = history(30);
    const standIn = (i: number) => ({ ...h[i]!, content: [{ type: "text", text: "[stored: ocm_artifact:v1:sha256:" + "0".repeat(64) + "]" }] }) as AgentMessage;
    const agedAt = [2, 20, 22, 40, 58];
    const sent = h.map((m, i) => (agedAt.includes(i) ? standIn(i) : m));
    const gauge = { role: "custom", customType: "context-manager-gauge", content: "[Context: 80%]", display: false, timestamp: 999 } as AgentMessage;
    const copy = (m: AgentMessage) => ({ ...m }) as AgentMessage; // a trim's replacement: not the sent object
    // dropped: 3..17 (more than the lookahead) and 41; replaced: 30; inserted: the gauge line, after 10 and at the end
    const final = [...sent.slice(0, 3), gauge, ...sent.slice(18, 30), copy(sent[30]!), ...sent.slice(31, 41), ...sent.slice(42), gauge];
    const b = computeBreakdown({ ...settings, messages: final, aging: { unaged: h, sent } });
    const stub = "[stored: ocm_artifact:v1:sha256:".length + 64 + 1;
    // stand-ins left in the final request: 2, 20, 22, 40, 58 (all kept)
    expect(b.categories.handles).toBe(Math.round((5 * (stub + MESSAGE_FRAMING_CHARS)) / 4));
    expect(b.removed.aged_offload.items).toBe(5);
    // the same with every message of `final` a fresh array of the same objects, one at a time: the same
    expect(computeBreakdown({ ...settings, messages: [...final], aging: { unaged: h, sent } })).toEqual(b);
  });
});
