import { describe, expect, it } from "vitest";
import { RESTORE_END_MARKER, RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { renderCheckpointRestore } from "../../src/agents/inject/render-restore.js";
import { estimateTextTokens } from "../../src/agents/text/token-estimate.js";
import { specExampleCheckpoint } from "./fixtures.js";
import { expectWellFormedBlock } from "./grammar.js";

const BIG = 5000;

describe("estimateTextTokens", () => {
  it("is ceil(chars / 4)", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("a")).toBe(1);
    expect(estimateTextTokens("abcd")).toBe(1);
    expect(estimateTextTokens("abcde")).toBe(2);
    expect(estimateTextTokens("x".repeat(4000))).toBe(1000);
  });
});

describe("renderCheckpointRestore: the spec example", () => {
  const cp = specExampleCheckpoint();
  const r = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG });
  const lines = r.text.split("\n");

  it("renders every section as agent-readable lines", () => {
    expect(lines.slice(0, 6)).toEqual([
      RESTORE_HEADER_POST_COMPACTION,
      "Checkpoint cp_004 (compaction, 2026-02-24 15:30 UTC) · context 82% of 200k · compactions this session: 2",
      'Working on: "Helping user plan a trip to Japan"',
      "Status: in_progress",
      'Next action: "User asked about visa requirements -- need to answer"',
      "",
    ]);
    expect(lines).toContain("Decisions made (newest first):");
    expect(lines).toContain('- "User prefers budget options over luxury" (14:15)');
    expect(lines).toContain('- "Flights from Belgrade, March 15-29 window" (14:19)');
    expect(lines).toContain('Thread: "Planning Japan trip. Settled on March dates, budget focus."');
    expect(lines).toContain("Key exchanges:");
    expect(lines).toContain('- user: "I want to go to Japan in March, budget-friendly"');
    expect(lines).toContain('- agent: "Proposed 2-week itinerary Tokyo-Kyoto-Osaka, ~$2k budget"');
    expect(lines).toContain(
      'Files modified: "itinerary/plan.md", "itinerary/budget.csv", "notes/japan.md", "itinerary/hotels.md", "itinerary/flights.md", "README.md"',
    );
    expect(lines).toContain('Files read: "notes/japan.md", "notes/visa.md", "docs/jr-pass.md", "itinerary/draft.md"');
    expect(lines).toContain('Tools used: "web_search", "memory_search", "read", "edit"');
    expect(lines).toContain("Open items:");
    expect(lines).toContain('- "Visa requirements for Serbian passport"');
    expect(lines).toContain('- "User hasn\'t decided on accommodation style"');
    expect(lines).toContain("Learnings (consider storing to long-term memory via memory_store):");
    expect(lines).toContain('- "User is price-sensitive, always ask about budget first"');
    expect(lines[lines.length - 1]).toBe(RESTORE_END_MARKER);
    expect(r.omitted).toEqual([]);
    expect(r.text).not.toContain("Interrupted");
    expect(r.text).not.toContain("Tool failures");
    expect(r.text).not.toContain("Note: ");
    expect(r.text).not.toContain("not shown");
    expectWellFormedBlock(r.text, "post-compaction");
  });

  it("keeps sections in the documented order", () => {
    const order = ["Decisions made (newest first):", "Thread: ", "Key exchanges:", "Files modified: ", "Files read: ", "Tools used: ", "Open items:", "Learnings"];
    const positions = order.map((p) => lines.findIndex((l) => l.startsWith(p)));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("is within the spec's typical load (≈600-700 tokens or less) and reports its size", () => {
    expect(r.tokens).toBe(estimateTextTokens(r.text));
    expect(r.tokens).toBeLessThanOrEqual(700);
    expect(r.tokens).toBeGreaterThan(300);
    // The default cap (800) keeps the whole typical block.
    const capped = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: 800 });
    expect(capped.text).toBe(r.text);
  });
});

describe("renderCheckpointRestore: working state details", () => {
  it("shows the interrupted tool call only when interrupted", () => {
    const cp = specExampleCheckpoint();
    cp.working.interrupted = true;
    cp.working.last_tool_call = { name: "edit", params_summary: "src/x.ts replace the budget table" };
    const text = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text;
    expect(text.split("\n")).toContain('Interrupted: yes — last tool call: "edit" "src/x.ts replace the budget table"');
    cp.working.last_tool_call = null;
    expect(renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text.split("\n")).toContain("Interrupted: yes");
  });

  it("renders tool failures with tool, target and error", () => {
    const cp = specExampleCheckpoint();
    cp.thread.errors = [
      { tool: "read", target: "missing.txt", error: "ENOENT: no such file or directory", when: "2026-02-24T15:00:00Z" },
      { tool: "bash", target: "", error: "exit code 2", when: "2026-02-24T15:01:00Z" },
    ];
    const lines = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text.split("\n");
    const at = lines.indexOf("Tool failures (do not retry blindly):");
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('- "read" "missing.txt": "ENOENT: no such file or directory"');
    expect(lines[at + 2]).toBe('- "bash": "exit code 2"');
  });

  it("says when the topic or next action was not recorded", () => {
    const cp = specExampleCheckpoint();
    cp.working.topic = "";
    cp.working.next_action = "";
    const lines = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text.split("\n");
    expect(lines).toContain("Working on: (not recorded)");
    expect(lines).toContain("Next action: (not recorded)");
  });

  it("shows the date of a decision taken on another day, and converts to the given time zone", () => {
    const cp = specExampleCheckpoint();
    cp.decisions = [
      { id: "d1", what: "Yesterday's call", when: "2026-02-23T23:10:00Z" },
      { id: "d2", what: "Today's call", when: "2026-02-24T09:05:00Z" },
    ];
    const utc = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text.split("\n");
    expect(utc).toContain(`- "Yesterday's call" (2026-02-23 23:10)`);
    expect(utc).toContain(`- "Today's call" (09:05)`);
    // Belgrade is UTC+1 in February: yesterday 23:10 UTC is today 00:10 there.
    const bg = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG, timeZone: "Europe/Belgrade" }).text.split("\n");
    expect(bg).toContain(`- "Yesterday's call" (00:10)`);
    expect(bg).toContain(`- "Today's call" (10:05)`);
    expect(bg[1]).toContain("2026-02-24 16:30 Europe/Belgrade");
  });

  it("falls back to UTC for an unknown time zone instead of throwing", () => {
    const r = renderCheckpointRestore(specExampleCheckpoint(), { kind: "post-compaction", maxTokens: BIG, timeZone: "Mars/Olympus" });
    expect(r.text.split("\n")[1]).toContain("2026-02-24 15:30 UTC");
  });

  it("formats large context windows", () => {
    const cp = specExampleCheckpoint({ token_usage: { input_tokens: 500_000, context_window: 1_000_000, utilization: 0.5 } });
    expect(renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: BIG }).text).toContain("context 50% of 1M");
  });
});

describe("renderCheckpointRestore: resume", () => {
  it("uses the resume header and says which session left the state, and when", () => {
    const r = renderCheckpointRestore(specExampleCheckpoint(), { kind: "resume", maxTokens: BIG });
    const lines = r.text.split("\n");
    expect(lines[0]).toBe(RESTORE_HEADER_RESUME);
    expect(lines[1]).toBe(
      "This is the state a previous session on this key left at 2026-02-24 15:30 UTC; verify it before acting on it.",
    );
    expect(lines[2]).toContain("compactions in that session: 2");
    expect(r.text).not.toContain(RESTORE_HEADER_POST_COMPACTION);
    expectWellFormedBlock(r.text, "resume");
  });
});

describe("renderCheckpointRestore: death-spiral warning (spec §5.5: compaction_count > 3)", () => {
  const warningOf = (count: number, kind: "post-compaction" | "resume" = "post-compaction") =>
    renderCheckpointRestore(specExampleCheckpoint({ compaction_count: count }), { kind, maxTokens: BIG })
      .text.split("\n")
      .filter((l) => l.startsWith("Note: "));

  it("is absent at 3 compactions", () => {
    expect(warningOf(3)).toEqual([]);
    expect(warningOf(0)).toEqual([]);
  });

  it("is present at 4: says what it measured and when /new is worth it, without telling a healthy session to stop", () => {
    const w = warningOf(4);
    expect(w).toHaveLength(1);
    expect(w[0]).toContain("4 compactions this session (more than 3)");
    expect(w[0]).toContain("only if compactions now come every turn or two");
    expect(w[0]).toContain("/new");
    expect(w[0]).not.toMatch(/start a fresh session|WARNING|at risk/);
    expect(warningOf(12)[0]).toContain("12 compactions this session");
  });

  it("sits right before the end marker", () => {
    const lines = renderCheckpointRestore(specExampleCheckpoint({ compaction_count: 5 }), { kind: "post-compaction", maxTokens: BIG })
      .text.split("\n");
    expect(lines[lines.length - 2]?.startsWith("Note: ")).toBe(true);
  });

  it("is not shown on resume: the new session starts with no compactions", () => {
    expect(warningOf(9, "resume")).toEqual([]);
  });

  it("survives the tightest budgets that still fit the working lines", () => {
    const cp = specExampleCheckpoint({ compaction_count: 7 });
    for (const maxTokens of [70, 80, 100, 150, 300]) {
      const r = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens });
      expect(r.tokens).toBeLessThanOrEqual(maxTokens);
      expect(r.text).toMatch(/^Note: \d+ compactions/m);
      expect(r.text).toMatch(/^Working on: /m);
    }
  });
});
