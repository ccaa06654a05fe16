/**
 * Smart trim over random histories (fast-check): never an orphaned tool call or result,
 * Layer 1 always kept, enough dropped when enough is droppable, sticky, idempotent.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { SmartTrim, type TrimSettings } from "../../src/agents/trim/smart-trim.js";
import { orphansOf } from "../../src/replay/orphans.js";
import { keysOf } from "../../src/agents/messages/message-key.js";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";
import { TRIM_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";

type Step = { kind: "user"; words: number; topic: number } | { kind: "text"; words: number; topic: number } | { kind: "calls"; n: number; sizes: number[]; topic: number } | { kind: "custom" };

const TOPICS = ["parseCheckpointFile", "renderFooter", "ledger_drift", "themeLoader", "queueMessage"];

function text(words: number, topic: number): string {
  return `${TOPICS[topic % TOPICS.length]} ${"lorem ipsum dolor ".repeat(Math.max(1, words))}`.trim();
}

/** A history built from steps: every tool call answered right after its assistant message. */
function historyOf(steps: Step[], summary: boolean): AgentMessage[] {
  const out: AgentMessage[] = [];
  let t = 1_000;
  let call = 0;
  if (summary) out.push({ role: "compactionSummary", summary: "earlier work", tokensBefore: 1000, timestamp: t++ } as unknown as AgentMessage);
  for (const s of steps) {
    if (s.kind === "user") out.push({ role: "user", content: text(s.words, s.topic), timestamp: t++ } as AgentMessage);
    else if (s.kind === "text") out.push({ role: "assistant", content: [{ type: "text", text: text(s.words, s.topic) }], timestamp: t++ } as unknown as AgentMessage);
    else if (s.kind === "custom") out.push({ role: "custom", customType: "context-gauge", content: "[Context: 50%]", display: false, timestamp: t++ } as unknown as AgentMessage);
    else {
      const ids = Array.from({ length: s.n }, () => `call_${++call}`);
      out.push({
        role: "assistant",
        content: ids.map((id) => ({ type: "toolCall", id, name: "read", arguments: { path: `src/${TOPICS[s.topic % TOPICS.length]}.ts` } })),
        timestamp: t++,
      } as unknown as AgentMessage);
      ids.forEach((id, k) =>
        out.push({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: text(s.sizes[k] ?? 10, s.topic) }], isError: false, timestamp: t++ } as unknown as AgentMessage),
      );
    }
  }
  return out;
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), words: fc.integer({ min: 1, max: 200 }), topic: fc.nat(9) }),
  fc.record({ kind: fc.constant("text" as const), words: fc.integer({ min: 1, max: 200 }), topic: fc.nat(9) }),
  fc.record({ kind: fc.constant("calls" as const), n: fc.integer({ min: 1, max: 3 }), sizes: fc.array(fc.integer({ min: 1, max: 800 }), { minLength: 3, maxLength: 3 }), topic: fc.nat(9) }),
  fc.record({ kind: fc.constant("custom" as const) }),
);

const total = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + estimateTokens(m), 0);

function run(trim: SmartTrim, messages: AgentMessage[], s: TrimSettings) {
  const { query, requestAt } = recallQueryOf(messages);
  return trim.apply({ messages, tokens: total(messages), query, requestAt }, s);
}

describe("smart trim over random histories", () => {
  it("never orphans a tool call or result, keeps Layer 1, drops enough, is idempotent and sticky", () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 120 }),
        fc.array(step, { minLength: 0, maxLength: 20 }),
        fc.boolean(),
        fc.integer({ min: 200, max: 20_000 }),
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.boolean(),
        (steps, more, summary, safeLimit, keepRecent, headroom, marker) => {
          const s: TrimSettings = { safeLimit, headroom, keepRecent, marker };
          const trim = new SmartTrim();
          const messages = historyOf(steps, summary);
          const r = run(trim, messages, s);
          const sent = r.messages;
          expect(orphansOf(sent)).toBe(0);
          // Layer 1: custom messages, summaries and the last keepRecent user/assistant messages stay
          const keys = new Set(keysOf(sent));
          const all = keysOf(messages);
          let seen = 0;
          for (let i = messages.length - 1; i >= 0; i--) {
            const m = messages[i]!;
            if (seen < keepRecent || m.role === "custom" || m.role === "compactionSummary") expect(keys.has(all[i]!)).toBe(true);
            if (m.role === "user" || m.role === "assistant") seen++;
          }
          // trimmed messages are those reported, and the marker is one line at most
          const markers = sent.filter((m) => (m as { customType?: string }).customType === TRIM_CUSTOM_TYPE).length;
          expect(markers).toBe(marker && r.trimmed > 0 ? 1 : 0);
          expect(sent.length - markers).toBe(messages.length - r.trimmed);
          expect(r.newTokens).toBe(total(r.newlyTrimmed));
          // enough dropped, unless what is left is protected
          if (r.newlyTrimmed.length > 0 && total(messages) - r.newTokens > safeLimit * (1 - headroom)) {
            const again = new SmartTrim();
            const everything = run(again, messages, { ...s, headroom: 0.9, safeLimit: 1 });
            expect(total(messages) - everything.newTokens).toBeGreaterThanOrEqual(total(messages) - r.newTokens);
          }
          // idempotent: the same request again trims nothing more and sends the same messages
          const r2 = run(trim, messages, s);
          expect(r2.newlyTrimmed).toHaveLength(0);
          expect(JSON.stringify(r2.messages)).toBe(JSON.stringify(sent));
          // sticky: with more history, every message trimmed before stays trimmed
          const longer = historyOf([...steps, ...more], summary);
          const r3 = run(trim, longer, s);
          expect(orphansOf(r3.messages)).toBe(0);
          const keys3 = new Set(keysOf(r3.messages));
          for (const k of all) if (!keys.has(k)) expect(keys3.has(k)).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("skips a query shorter than 3 characters, and trims nothing under safeLimit", () => {
    const messages = historyOf(
      Array.from({ length: 40 }, (_, i): Step => (i % 2 ? { kind: "calls", n: 1, sizes: [300], topic: i } : { kind: "text", words: 50, topic: i })),
      false,
    );
    messages.push({ role: "user", content: "ok", timestamp: 99_999 } as AgentMessage);
    const s: TrimSettings = { safeLimit: 500, headroom: 0.2, keepRecent: 4, marker: true };
    const short = new SmartTrim().apply({ messages, tokens: total(messages), query: "ok", requestAt: new Set([messages.length - 1]) }, s);
    expect(short.messages).toBe(messages);
    const under = new SmartTrim().apply({ messages, tokens: 400, query: "renderFooter please", requestAt: new Set() }, s);
    expect(under.messages).toBe(messages);
  });

  it("drops what the query does not name first (Layer 2) and keeps the relevant when that is enough", () => {
    const steps: Step[] = [];
    for (let i = 0; i < 30; i++) steps.push({ kind: "calls", n: 1, sizes: [200], topic: i % 5 });
    steps.push({ kind: "user", words: 3, topic: 0 }, { kind: "text", words: 3, topic: 0 });
    const messages = historyOf(steps, false);
    messages.push({ role: "user", content: "where was ledger_drift handled?", timestamp: 99_999 } as AgentMessage);
    const s: TrimSettings = { safeLimit: Math.floor(total(messages) * 0.7), headroom: 0, keepRecent: 2, marker: false };
    const trim = new SmartTrim();
    trim.apply({ messages, tokens: 0, query: "x", requestAt: new Set() }, s); // shows the history: queued for indexing
    trim.relevance.flush();
    const r = run(trim, messages, s);
    expect(r.layer2).toBeGreaterThan(0);
    const sentText = JSON.stringify(r.messages);
    const trimmedText = JSON.stringify(r.newlyTrimmed);
    // every ledger_drift read survived while the other topics went
    expect(trimmedText).not.toContain("ledger_drift");
    expect(sentText).toContain("ledger_drift");
  });
});
