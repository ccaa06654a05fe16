/**
 * The replay's knowledge measure searches the knowledge file as it stood when each request was
 * sent: a record written after the request (as later checkpoints record the request itself)
 * never counts as a hit for it; the final-file figure is kept apart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appendKnowledge } from "../../src/agents/archive/knowledge-store.js";
import { KnowledgeTimeline, measureKnowledge } from "../../src/replay/knowledge-metrics.js";
import type { RecallQuery, RecallReport } from "../../src/replay/recall.js";

const query = (segment: number, text: string, identifiers: string[]): RecallQuery => ({
  compaction: 1,
  turn: 0,
  segment,
  query: text,
  identifiers,
  relevant: 1,
  rank: null,
  rankSpanOnly: null,
  blockTokens: 0,
  blockRelevant: false,
});

describe("knowledge on replay", () => {
  let dir = "";
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("counts only records written before the request", async () => {
    dir = mkdtempSync(join(tmpdir(), "cm-kmetrics-"));
    const file = join(dir, "knowledge.jsonl");
    const timeline = new KnowledgeTimeline(file);
    const t = Date.parse("2026-11-25T10:00:00Z");
    await appendKnowledge(file, [{ kind: "implementation", subject: "file:src/ledger.ts", text: "src/ledger.ts: declares reconcileLedgerDrift()", t }], { checkpoint: "cp_001", session: "s" });
    await timeline.mark(0);
    await timeline.mark(1);
    // after request 1: a later checkpoint records the request itself
    await appendKnowledge(file, [{ kind: "task_state", subject: "request:x", text: "user asked: why does applyRefundCents fail?", t }], { checkpoint: "cp_002", session: "s" });
    const recall = {
      detail: [query(0, "what does reconcileLedgerDrift return", ["reconcileLedgerDrift"]), query(1, "why does applyRefundCents fail?", ["applyRefundCents"])],
    } as unknown as RecallReport;
    const report = await measureKnowledge(file, recall, new Map(), timeline);
    expect(report.detail.map((d) => d.knowledgeRank)).toEqual([1, null]);
    expect(report.detail.map((d) => d.recordsThen)).toEqual([1, 1]);
    expect(report.at5Knowledge).toBe(0.5);
    // searched in the final file, the second query finds its own echo
    expect(report.finalFile.at5Knowledge).toBe(1);
  });
});
