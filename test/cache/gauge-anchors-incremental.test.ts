/**
 * Gauge lines under a prompt cache are placed in O(new messages) (cache/gauge-anchors.ts): when
 * the host only appended, no message before the previous request's end is read except the
 * first and the last of them (their identity), and the lines stand where the full pass puts them.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { CacheSession } from "../../src/agents/cache/cache-session.js";
import { withAnchoredGauge } from "../../src/agents/cache/gauge-anchors.js";

const msg = (i: number): AgentMessage =>
  (i % 2 === 0 ? { role: "user", content: `question ${i}`, timestamp: 1_000 + i } : { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], timestamp: 1_000 + i }) as unknown as AgentMessage;

/** The message, counting every property read. */
function counted(m: AgentMessage, reads: { n: number }): AgentMessage {
  return new Proxy(m as object, {
    get(t, p, r) {
      reads.n++;
      return Reflect.get(t, p, r);
    },
  }) as AgentMessage;
}

const texts = (ms: AgentMessage[]) => ms.map((m) => (m.role === "custom" ? `G:${(m as { content: string }).content}` : String((m as { timestamp: number }).timestamp)));

describe("gauge lines placed in O(new messages)", () => {
  it("an appended history: old messages unread (first and last aside), lines where the full pass puts them", () => {
    const s = new CacheSession();
    const history = Array.from({ length: 200 }, (_, i) => msg(i));
    withAnchoredGauge(history, s, { text: "[Context: 71% | line one]", step: "a|14", force: false }, 5_000);
    const grown = [...history, msg(200), msg(201)];
    withAnchoredGauge(grown, s, { text: "[Context: 76% | line two]", step: "a|15", force: false }, 6_000);

    const reads = Array.from({ length: 202 }, () => ({ n: 0 }));
    const next = [...grown, msg(202), msg(203)].map((m, i) => (i < 202 ? counted(m, reads[i]!) : m));
    const out = withAnchoredGauge(next, s, { text: "[Context: 77% | same step]", step: "a|15", force: false }, 7_000);
    const inner = reads.slice(1, 201).reduce((n, r) => n + r.n, 0);
    expect(inner).toBe(0);

    // the same placement as a full pass by identity (a fresh session that knows the same lines)
    const full = new CacheSession();
    full.anchors = s.anchors.map((a) => ({ ...a, at: -1 }));
    const byKey = withAnchoredGauge([...grown, msg(202), msg(203)], full, null, 7_000);
    expect(texts(out)).toEqual(texts(byKey));
    expect(texts(out).filter((t) => t.startsWith("G:"))).toEqual(["G:[Context: 71% | line one]", "G:[Context: 76% | line two]"]);
    expect(texts(out)[200]).toBe("G:[Context: 71% | line one]");
    expect(texts(out)[203]).toBe("G:[Context: 76% | line two]");
  });

  it("a rewritten history (a compaction): the full pass, lines whose message is gone forgotten", () => {
    const s = new CacheSession();
    const history = Array.from({ length: 20 }, (_, i) => msg(i));
    withAnchoredGauge(history, s, { text: "[Context: 71% | before]", step: "a|14", force: false }, 5_000);
    const compacted = [msg(15), msg(16), msg(17), msg(18), msg(19), msg(20)];
    const out = withAnchoredGauge(compacted, s, null, 6_000);
    // the line followed message 19, which is still there: kept after it
    expect(texts(out)).toEqual(["1015", "1016", "1017", "1018", "1019", "G:[Context: 71% | before]", "1020"]);
    const gone = withAnchoredGauge([msg(30), msg(31)], s, null, 7_000);
    expect(texts(gone)).toEqual(["1030", "1031"]);
    expect(s.anchors).toEqual([]);
  });
});
