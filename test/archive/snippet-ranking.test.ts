/**
 * Search results a new user can read (issue 27): a snippet around the best match with the
 * terms marked instead of a 2,000-char chunk, redacted before it is cut; and the ranking that
 * put a write receipt above content (a path match weighed twice, short receipts scored high).
 */
import { describe, expect, it } from "vitest";
import { snippetOf, SNIPPET_CHARS } from "../../src/agents/archive/recall-render.js";
import { indexedTarget, isReceipt, segmentWeight, RECEIPT_WEIGHT } from "../../src/agents/archive/bm25.js";
import { SearchIndex } from "../../src/agents/archive/archive.js";
import type { ArchiveRecord } from "../../src/agents/archive/store.js";

let seq = 0;
function rec(p: Partial<ArchiveRecord> & Pick<ArchiveRecord, "role" | "text">): ArchiveRecord {
  seq++;
  return { v: 1, id: seq.toString(16).padStart(16, "0"), seq, at: 1_000, t: 1_000, session: "s", compaction: 1, ...p } as ArchiveRecord;
}

describe("snippetOf", () => {
  it("shows the window with the most matched terms, marked, and says what was left out", () => {
    const text = `${"filler words here. ".repeat(60)}the parser computes average() of xs here ${"tail text. ".repeat(80)}`;
    const s = snippetOf(text, ["average", "xs"]);
    expect(s.length).toBeLessThanOrEqual(SNIPPET_CHARS + 2 + 8);
    expect(s).toMatch(/^….*«average»\(\) of «xs».*…$/);
  });

  it("returns a short text whole, and redacts before cutting", () => {
    expect(snippetOf("just average", ["average"])).toBe("just «average»");
    const secret = "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2";
    const s = snippetOf(`${"x ".repeat(200)}token=${secret} average`, ["average"]);
    expect(s).not.toContain("Aa1Bb2");
  });
});

describe("ranking: receipts below content", () => {
  it("a write receipt that only restates its path no longer outranks the content that matches", () => {
    const receipt = rec({ role: "tool_result", tool: "write", target: "test/average.test.mjs", text: "Successfully wrote 113 bytes to test/average.test.mjs" });
    expect(isReceipt(receipt)).toBe(true);
    expect(segmentWeight(receipt)).toBe(RECEIPT_WEIGHT);
    const content = rec({
      role: "tool_result",
      tool: "read",
      target: "src/math.ts",
      text: "export function sum(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n\nexport function average(xs: number[]): number {\n  const total = sum(xs);\n  return total / (xs.length - 1);\n}",
    });
    expect(isReceipt(content)).toBe(false);
    const index = new SearchIndex();
    index.add([receipt, content, rec({ role: "user", text: "please look at the parser" })]);
    const hits = index.search("average");
    expect(hits[0]!.record.id).toBe(content.id);
    expect(hits.find((h) => h.record.id === receipt.id)!.score).toBeLessThan(hits[0]!.score);
  });

  it("a failed result is never a receipt", () => {
    expect(isReceipt({ role: "tool_result", target: "a.ts", text: "ENOENT a.ts", error: true })).toBe(false);
  });
});

describe("ranking: the target field (issue 40)", () => {
  it("a receipt's target is not indexed twice: its text holds it already", () => {
    const receipt = rec({ role: "tool_result", tool: "write", target: "src/average.ts", text: "Successfully wrote 10 bytes to src/average.ts" });
    expect(indexedTarget(receipt)).toBe("");
    const read = rec({ role: "tool_result", tool: "read", target: "src/average.ts", text: "export const x = 1;" });
    expect(indexedTarget(read)).toBe("src/average.ts");
    // with the target field weighed twice, the receipt still ranks below the content that matches
    const content = rec({ role: "tool_result", tool: "read", target: "src/math.ts", text: "export function average(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0) / xs.length;\n}" });
    const index = new SearchIndex();
    index.add([receipt, content]);
    expect(index.search("average")[0]!.record.id).toBe(content.id);
  });
});
