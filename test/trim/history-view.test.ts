/** The incremental view of keys and units equals a fresh pass, whatever is appended or replaced. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HistoryView } from "../../src/agents/trim/history-view.js";
import { keysOf } from "../../src/agents/messages/message-key.js";
import { unitsOf } from "./trim-reference.js";

type Op = { kind: "user" | "text" | "gauge" | "dupUser" } | { kind: "calls"; n: number } | { kind: "compact" };

function build(ops: Op[]): AgentMessage[][] {
  const snapshots: AgentMessage[][] = [];
  let history: AgentMessage[] = [];
  let t = 1;
  let call = 0;
  for (const op of ops) {
    if (op.kind === "user") history.push({ role: "user", content: "u", timestamp: t++ } as AgentMessage);
    else if (op.kind === "dupUser") history.push({ role: "user", content: "same time", timestamp: t } as AgentMessage);
    else if (op.kind === "text") history.push({ role: "assistant", content: [{ type: "text", text: "a" }], timestamp: t++ } as unknown as AgentMessage);
    else if (op.kind === "compact") history = [{ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: t++ } as unknown as AgentMessage, ...history.slice(-3)];
    else if (op.kind === "calls") {
      const ids = Array.from({ length: op.n }, () => `c${++call}`);
      history.push({ role: "assistant", content: ids.map((id) => ({ type: "toolCall", id, name: "read", arguments: {} })), timestamp: t++ } as unknown as AgentMessage);
      for (const id of ids) history.push({ role: "toolResult", toolCallId: id, toolName: "read", content: [], isError: false, timestamp: t } as unknown as AgentMessage);
      t++;
    }
    // each request: the history plus a fresh gauge line at the end (sometimes)
    const gauge = op.kind === "gauge" ? [{ role: "custom", customType: "context-gauge", content: "g", display: false, timestamp: t++ } as unknown as AgentMessage] : [];
    snapshots.push([...history, ...gauge]);
  }
  return snapshots;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constantFrom<Op>({ kind: "user" }, { kind: "text" }, { kind: "gauge" }, { kind: "dupUser" }, { kind: "compact" }),
  fc.integer({ min: 1, max: 3 }).map((n): Op => ({ kind: "calls", n })),
);

describe("HistoryView", () => {
  it("equals keysOf and unitsOf after every request", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 80 }), (ops) => {
        const view = new HistoryView();
        for (const messages of build(ops)) {
          const { keys, units } = view.update(messages);
          expect([...keys]).toEqual(keysOf(messages));
          const fresh = unitsOf(messages);
          expect(Array.from(units.unitOf)).toEqual(Array.from(fresh.unitOf));
          expect(units.members.map((m) => [...m])).toEqual(fresh.members);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reuses the last request's messages when the history only grew", () => {
    const [a, b] = build([{ kind: "user" }, { kind: "calls", n: 2 }]);
    const view = new HistoryView();
    view.update(a!);
    expect(view.rebuilt).toBe(true);
    const r = view.update(b!);
    expect(view.rebuilt).toBe(false);
    expect(r.from).toBe(a!.length);
  });
});
