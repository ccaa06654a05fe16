/**
 * The incremental decision (trim-select.ts, inside SmartTrim) chooses exactly what the full
 * pass chooses (trim-reference.ts: Layer 1, then Layers 2 and 3, over the sticky
 * set re-applied to the whole history), request after request, over random growing sessions
 * with gauge lines, compactions, new queries and an index that catches up at random times.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { recallQueryOf } from "../../src/agents/archive/recall-query.js";
import { keysOf } from "../../src/agents/messages/message-key.js";
import { SmartTrim, MIN_QUERY_CHARS, type TrimSettings } from "../../src/agents/trim/smart-trim.js";
import { planTrim, protectedIndexes, unitsOf } from "./trim-reference.js";

const TOPICS = ["parseCheckpointFile", "renderFooter", "ledger_drift", "themeLoader", "queueMessage"];
const text = (words: number, topic: number) => `${TOPICS[topic % TOPICS.length]} ${"lorem ipsum dolor ".repeat(words)}`.trim();

type Step =
  | { kind: "user" | "text"; words: number; topic: number }
  | { kind: "calls"; n: number; size: number; topic: number }
  | { kind: "compact" }
  | { kind: "flush" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom("user" as const, "text" as const), words: fc.integer({ min: 1, max: 120 }), topic: fc.nat(9) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("calls" as const), n: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 1, max: 300 }), topic: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "flush" as const }) },
);

const total = (ms: readonly AgentMessage[]) => ms.reduce((a, m) => a + estimateTokens(m), 0);

/** The full pass, as SmartTrim decided before it was incremental. */
class FullPass {
  private readonly trimmed = new Set<string>();
  private last = "";

  apply(trim: SmartTrim, messages: AgentMessage[], tokens: number, query: string, requestAt: ReadonlySet<number>, s: TrimSettings): { sent: string[]; dropped: string[] } {
    const keys = keysOf(messages);
    const live = new Set(keys);
    for (const k of this.trimmed) if (!live.has(k)) this.trimmed.delete(k);
    const units = unitsOf(messages);
    const trimmedAt = new Uint8Array(messages.length);
    for (let i = 0; i < messages.length; i++) if (this.trimmed.has(keys[i]!)) for (const j of units.members[units.unitOf[i]!]!) trimmedAt[j] = 1;
    const dropped: string[] = [];
    const decision = `${messages.length}\0${keys.at(-1)}\0${tokens}`;
    if (tokens > s.safeLimit && query.trim().length >= MIN_QUERY_CHARS && decision !== this.last) {
      this.last = decision;
      const scoreOf = trim.relevance.scorer(query);
      const plan = planTrim({
        units,
        protectedAt: protectedIndexes({ messages, units, keepRecent: s.keepRecent, requestAt, carriesOurBlock: () => false }),
        trimmedAt,
        tokensAt: (i) => estimateTokens(messages[i]!),
        scoreAt: (i) => scoreOf(keys[i]!),
        need: tokens - Math.floor(s.safeLimit * (1 - s.headroom)),
      });
      for (const i of plan.drop) {
        this.trimmed.add(keys[i]!);
        trimmedAt[i] = 1;
        dropped.push(keys[i]!);
      }
    }
    return { sent: keys.filter((_, i) => !trimmedAt[i]), dropped };
  }
}

describe("incremental trim decision", () => {
  it("equals the full pass on every request", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 300, max: 12_000 }),
        fc.integer({ min: 0, max: 8 }),
        fc.double({ min: 0, max: 0.4, noNaN: true }),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (requests, safeLimit, keepRecent, headroom, gauges) => {
          const s: TrimSettings = { safeLimit, headroom, keepRecent, marker: true };
          const trim = new SmartTrim();
          const full = new FullPass();
          let history: AgentMessage[] = [{ role: "user", content: "start", timestamp: 1 } as AgentMessage];
          let t = 10;
          let call = 0;
          let sentTokens = 0;
          requests.forEach((steps, r) => {
            for (const st of steps) {
              if (st.kind === "user" || st.kind === "text") {
                if (st.kind === "user") history.push({ role: "user", content: text(st.words, st.topic), timestamp: t++ } as AgentMessage);
                else history.push({ role: "assistant", content: [{ type: "text", text: text(st.words, st.topic) }], timestamp: t++ } as unknown as AgentMessage);
              } else if (st.kind === "compact") history = [{ role: "compactionSummary", summary: "earlier", tokensBefore: 1, timestamp: t++ } as unknown as AgentMessage, ...history.slice(-3)];
              else if (st.kind === "flush") trim.relevance.flush();
              else if (st.kind === "calls") {
                const ids = Array.from({ length: st.n }, () => `call_${++call}`);
                history.push({ role: "assistant", content: ids.map((id) => ({ type: "toolCall", id, name: "read", arguments: { path: `src/${TOPICS[st.topic % 5]}.ts` } })), timestamp: t++ } as unknown as AgentMessage);
                for (const id of ids) history.push({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: text(st.size, st.topic) }], isError: false, timestamp: t++ } as unknown as AgentMessage);
              }
            }
            const gauge = gauges[r] ? [{ role: "custom", customType: "context-gauge", content: "[Context: 50%]", display: false, timestamp: t++ } as unknown as AgentMessage] : [];
            const messages = structuredClone([...history, ...gauge]);
            const { query, requestAt } = recallQueryOf(messages);
            // the reading: what was sent last time plus what is new, or the whole history (a restart)
            const tokens = r % 7 === 6 ? total(messages) : sentTokens + total(messages.slice(-4));
            const want = full.apply(trim, messages, tokens, query, requestAt, s);
            const got = trim.apply({ messages, tokens, query, requestAt }, s);
            const sentKeys = new Set(keysOf(got.messages));
            expect(keysOf(messages).filter((k) => sentKeys.has(k))).toEqual(want.sent);
            expect(keysOf(got.newlyTrimmed)).toEqual(want.dropped);
            sentTokens = total(got.messages);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
