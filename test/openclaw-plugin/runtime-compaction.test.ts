/**
 * Noticing the runtime's own compactions on the plugin route (src/openclaw-plugin/runtime-compaction.ts):
 * which histories count as "a compaction happened since the last look".
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { newRuntimeCompaction, summaryKeyOf, type SummaryWatch } from "../../src/openclaw-plugin/session-file.js";

const summary = (text: string, t: number) => ({ role: "compactionSummary", summary: text, tokensBefore: 1, timestamp: t }) as unknown as AgentMessage;
const branch = { role: "branchSummary", summary: "b", fromId: "x", timestamp: 1 } as unknown as AgentMessage;
const user = (text: string) => ({ role: "user", content: text, timestamp: 2 }) as AgentMessage;

describe("runtime compaction watch", () => {
  it("finds the summary in the prelude only (after a branch summary, not after the conversation starts)", () => {
    expect(summaryKeyOf([summary("s", 5), user("a")])).not.toBeNull();
    expect(summaryKeyOf([branch, summary("s", 5), user("a")])).toBe(summaryKeyOf([summary("s", 5)]));
    expect(summaryKeyOf([user("a"), summary("s", 5)])).toBeNull();
    expect(summaryKeyOf([])).toBeNull();
  });

  it("the first history is the baseline; a new summary after it is a compaction, once", () => {
    const w: SummaryWatch = { seen: undefined, ownCompaction: false };
    expect(newRuntimeCompaction(w, [summary("old", 1), user("a")])).toBe(false); // a restarted gateway
    expect(newRuntimeCompaction(w, [summary("old", 1), user("a"), user("b")])).toBe(false);
    expect(newRuntimeCompaction(w, [summary("new", 9), user("b")])).toBe(true);
    expect(newRuntimeCompaction(w, [summary("new", 9), user("b"), user("c")])).toBe(false);
  });

  it("the history after the engine's own compact() is the new baseline, even when it shows no summary (a rotated transcript)", () => {
    const w: SummaryWatch = { seen: undefined, ownCompaction: false };
    expect(newRuntimeCompaction(w, [user("a")])).toBe(false);
    w.ownCompaction = true;
    expect(newRuntimeCompaction(w, [user("fresh successor")])).toBe(false);
    expect(w.ownCompaction).toBe(false);
    expect(newRuntimeCompaction(w, [summary("in-attempt", 7), user("x")])).toBe(true);
  });
});
