/**
 * "checkpoint" compaction mode on a real AgentSession (issue 25): the extension's
 * session_before_compact returns the compaction itself. Three compactions: no model call for
 * any of them (the summarizer throws and is counted), the summary within its budget and bounded
 * across merges, pi's kept messages verbatim, no tool call or result orphaned in what is sent
 * after a compaction, and no restore block after a checkpoint compaction (the summary is it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@mariozechner/pi-ai";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import { COMPACTION_SUMMARY_HEADER, RESTORE_HEADER_POST_COMPACTION } from "../../src/agents/inject/markers.js";
import { estimateTextTokens } from "../../src/agents/text/token-estimate.js";
import { filler, reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const BUDGET = 600;

/** Every toolResult sent has its call earlier in the same request, and every call its result. */
function orphans(req: Context): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  const out: string[] = [];
  for (const m of req.messages as Array<{ role: string; content?: unknown; toolCallId?: string }>) {
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type: string; id?: string }>) if (b.type === "toolCall" && b.id) calls.add(b.id);
    }
    if (m.role === "toolResult" && m.toolCallId) {
      if (!calls.has(m.toolCallId)) out.push(`result without call: ${m.toolCallId}`);
      results.add(m.toolCallId);
    }
  }
  for (const id of calls) if (!results.has(id)) out.push(`call without result: ${id}`);
  return out;
}

describe("checkpoint compaction on a real AgentSession", () => {
  let s: Standalone;
  let session: AgentSession;

  beforeAll(async () => {
    s = await makeStandalone({ contextManager: { compaction: "checkpoint", compactionSummaryMaxTokens: BUDGET } });
    s.agent.onSummarize(() => {
      throw new Error("a model call was made for compaction");
    });
    session = await s.open();
  });
  afterAll(async () => {
    session?.dispose();
    await s?.cleanup();
  });

  it("compacts three times without a model call; summaries bounded, kept messages verbatim, no orphaned tool pair, no restore block", async () => {
    const summaries: string[] = [];
    const seenCompactions = () => session.sessionManager.getEntries().filter((e) => e.type === "compaction");
    let turn = 0;
    for (; turn < 120 && seenCompactions().length < 3; turn++) {
      const file = `src/mod${turn}.ts`;
      const keptBefore = seenCompactions().length;
      const branchBefore = session.sessionManager.getBranch();
      s.agent.queue(
        reply.tools(["write", { path: file, content: `export function feature${turn}() {\n  return ${turn};\n}\n` }]),
        reply.text(`${filler(`Wrote \`feature${turn}()\` in ${file}.`, 1800)}`),
      );
      await s.prompt(session, `Request ${turn}: add feature${turn} to ${file}. ${filler("context", 1200)}`);
      const after = seenCompactions();
      if (after.length > keptBefore) {
        const entry = after.at(-1)!;
        if (entry.type !== "compaction") throw new Error("not a compaction");
        summaries.push(entry.summary);
        // pi's cut point: everything from firstKeptEntryId on was in the branch before, verbatim
        const keptIds = branchBefore.map((e) => e.id);
        const from = keptIds.indexOf(entry.firstKeptEntryId);
        expect(from).toBeGreaterThanOrEqual(0);
        const keptBeforeEntries = branchBefore.slice(from);
        const nowBranch = session.sessionManager.getBranch();
        for (const e of keptBeforeEntries) expect(nowBranch.find((x) => x.id === e.id)).toEqual(e);
      }
    }
    expect(s.errors).toEqual([]);
    expect(summaries.length).toBe(3);
    expect(s.compactions.every((c) => c.ok)).toBe(true);
    // not one summarizer request: the checkpoint was the compaction every time
    expect(s.agent.summarizerRequests).toHaveLength(0);

    for (const [i, summary] of summaries.entries()) {
      expect(summary.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
      expect(estimateTextTokens(summary)).toBeLessThanOrEqual(BUDGET);
      expect(summary).toContain("context_search");
      expect(summary).toContain("src/mod0.ts".slice(4)); // the first changed file, folded or not
      if (i > 0) expect(summary).toMatch(/compaction \d+ of this session/);
    }
    // merges are bounded: the third summary is no longer than the budget even with more work
    expect(summaries[2]!.length).toBeLessThanOrEqual(BUDGET * 4);
    // every file changed so far is named in the last summary (folded paths keep file names)
    const last = summaries[2]!;
    const compactedTurns = turn;
    let named = 0;
    for (let i = 0; i < compactedTurns; i++) if (last.includes(`mod${i}.ts`)) named++;
    expect(named).toBe(compactedTurns);
    // the latest request the summary saw is in it
    expect(last).toMatch(/Request \d+: add feature\d+/);

    // after the compactions: no restore block, the summary is in the request, no orphaned pair
    s.agent.queue(reply.text("Continuing."));
    await s.prompt(session, "Where were we?");
    const req = s.agent.chatRequests.at(-1)!;
    const texts = requestTexts(req);
    expect(texts.some((t) => t.includes(COMPACTION_SUMMARY_HEADER))).toBe(true);
    expect(texts.some((t) => t.startsWith(RESTORE_HEADER_POST_COMPACTION))).toBe(false);
    for (const r of s.agent.chatRequests) expect(orphans(r)).toEqual([]);
    expect(s.agent.summarizerRequests).toHaveLength(0);
  }, TEST_TIMEOUT_MS);

  it("manual /compact (session.compact) takes the same path", async () => {
    const before = session.sessionManager.getEntries().filter((e) => e.type === "compaction").length;
    const result = await session.compact();
    expect(result.summary.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(session.sessionManager.getEntries().filter((e) => e.type === "compaction").length).toBe(before + 1);
    expect(s.agent.summarizerRequests).toHaveLength(0);
  }, TEST_TIMEOUT_MS);
});
