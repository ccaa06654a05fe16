/** Bounded fetch: every reply fits maxChars (header included) and says what it left out. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FETCH_HARD_MAX_CHARS, FetchSelectorError, parseJsonPath, selectFromArtifact } from "../../src/agents/artifacts/select.js";
import { previewParts, replacementText } from "../../src/agents/artifacts/preview.js";

const H = `ocm_artifact:v1:sha256:${"a".repeat(64)}`;
const LOG = Array.from({ length: 2000 }, (_, i) => `${String(i + 1).padStart(4, "0")} ${i % 97 === 0 ? "ERROR disk quota exceeded" : "info ok"} ${"x".repeat(i % 50)}`).join("\n");

describe("selectFromArtifact", () => {
  it("headtail: head and tail within the default 8k, with the omitted size", () => {
    const s = selectFromArtifact(H, LOG);
    expect(s.selector).toEqual({ mode: "headtail", maxChars: 8000 });
    expect(s.text.length).toBeLessThanOrEqual(8000);
    expect(s.text).toContain("0001 ");
    expect(s.text).toContain("2000 ");
    expect(s.text).toMatch(/omitted [\d,]+ chars/);
    expect(s.truncated).toBe(true);
    const small = selectFromArtifact(H, "a\nb\nc");
    expect(small.truncated).toBe(false);
    expect(small.text).toContain("nothing omitted");
  });

  it("range: numbered lines, and where to continue when maxChars stops it", () => {
    const s = selectFromArtifact(H, LOG, { mode: "range", startLine: 10, endLine: 12 });
    expect(s.text.split("\n").slice(1)).toEqual([10, 11, 12].map((n) => `${n}: ${LOG.split("\n")[n - 1]}`));
    const long = selectFromArtifact(H, LOG, { mode: "range", startLine: 1, maxChars: 1000 });
    expect(long.text.length).toBeLessThanOrEqual(1000);
    expect(long.text).toMatch(/continue with startLine \d+/);
    expect(selectFromArtifact(H, LOG, { startLine: 5000 }).text).toContain("past the last line (2,000)");
  });

  it("grep: matches with context lines and line numbers, and the count not shown", () => {
    const s = selectFromArtifact(H, LOG, { mode: "grep", pattern: "ERROR", context: 1, maxChars: 1500 });
    expect(s.text.length).toBeLessThanOrEqual(1500);
    expect(s.text).toContain("1: 0001 ERROR");
    expect(s.text).toContain("2- 0002 info");
    expect(s.text).toMatch(/21 matching lines, \d+ not shown/);
    expect(selectFromArtifact(H, LOG, { pattern: "nomatch-zzz" }).text).toContain("no match");
    expect(() => selectFromArtifact(H, LOG, { pattern: "(" })).toThrow(/invalid regex/);
  });

  it("grep: a pattern that backtracks exponentially in a JavaScript RegExp answers (linear-time engine), and matches as RegExp does on common patterns", () => {
    // `(a+)+$` against 28 `a`s and a `b` runs for seconds in V8; against a 9,000-char line, for ever
    const evil = ["a".repeat(9_000) + "b", "start", "a".repeat(40) + "!", "x".repeat(5000)].join("\n");
    for (const pattern of ["(a+)+$", "(a|a)*$", "(a|aa)+b$", "(.*a){20}$", "^(\\w+\\s?)*$"]) {
      const s = selectFromArtifact(H, evil, { pattern });
      expect(s.text.length).toBeGreaterThan(0);
    }
    expect(selectFromArtifact(H, evil, { pattern: "(a+)+b$" }).text).toContain("1: ");
    const lines = LOG.split("\n");
    for (const [pattern, ignoreCase] of [["ERROR", false], ["error", true], ["^00[1-3]\\d info", false], ["x{49}$", false], ["quota|disk", false], ["\\bok\\b", false]] as const) {
      const re = new RegExp(pattern, ignoreCase ? "i" : "");
      const expected = lines.filter((l) => re.test(l)).length;
      const s = selectFromArtifact(H, LOG, { pattern, ignoreCase, maxChars: 1000 });
      expect({ pattern, text: s.text }).toEqual({ pattern, text: expect.stringContaining(expected === 0 ? "no match" : `: ${expected.toLocaleString("en-US")} matching lines`) });
    }
    expect(() => selectFromArtifact(H, LOG, { pattern: "(?=ERROR)" })).toThrow(/invalid regex \(RE2 syntax/);
    expect(() => selectFromArtifact(H, LOG, { pattern: "(a)\\1" })).toThrow(/invalid regex/);
  });

  it("json: a path selector with the value's shape", () => {
    const doc = JSON.stringify({ items: [{ id: 1, name: "alpha" }, { id: 2, name: "beta", "odd key": true }], total: 2 });
    expect(selectFromArtifact(H, doc, { path: "items[1].name" }).text).toContain('"beta"');
    expect(selectFromArtifact(H, doc, { mode: "json", path: '$.items[1]["odd key"]' }).text).toContain("true");
    expect(selectFromArtifact(H, doc, { path: "$" }).text).toContain("object with keys items, total");
    expect(selectFromArtifact(H, doc, { path: "items[9]" }).text).toContain("no such path");
    expect(() => selectFromArtifact(H, LOG, { path: "a" })).toThrow(/not valid JSON/);
    expect(() => parseJsonPath("a..b")).toThrow(FetchSelectorError);
  });

  it("maxChars above the hard max is clamped to 20k and says so", () => {
    const big = "y".repeat(100_000);
    const s = selectFromArtifact(H, big, { maxChars: 1_000_000 });
    expect(s.selector.maxChars).toBe(FETCH_HARD_MAX_CHARS);
    expect(s.text.length).toBeLessThanOrEqual(FETCH_HARD_MAX_CHARS);
    expect(s.text).toContain("clamped to 20000");
  });

  it("never exceeds maxChars, whatever the payload and selector (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3000 }), { maxLength: 60 }),
        fc.constantFrom("headtail", "range", "grep"),
        fc.integer({ min: 0, max: 30_000 }),
        fc.integer({ min: 1, max: 80 }),
        (lines, mode, maxChars, start) => {
          const text = lines.join("\n");
          const s = selectFromArtifact(H, text, { mode: mode as "headtail", maxChars, startLine: start, pattern: "a|b", context: 3 });
          return s.text.length <= s.selector.maxChars && s.selector.maxChars <= FETCH_HARD_MAX_CHARS;
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("preview", () => {
  it("head and tail within the preview budget, never over 800 chars", () => {
    const p = previewParts(LOG, 600);
    expect(p.head.length + p.tail.length).toBeLessThanOrEqual(600);
    expect(p.head.startsWith("0001")).toBe(true);
    expect(p.tail.endsWith(LOG.split("\n").at(-1)!)).toBe(true);
    expect(previewParts(LOG, 5000).head.length + previewParts(LOG, 5000).tail.length).toBeLessThanOrEqual(800);
    const one = previewParts("z".repeat(50_000), 600);
    expect(one.head.length + one.tail.length).toBeLessThanOrEqual(602);
  });

  it("the replacement names the handle, the size and how to fetch", () => {
    const t = replacementText({ handle: H, text: LOG, lines: 2000, tool: "bash", previewChars: 600 });
    expect(t).toContain(H);
    expect(t).toMatch(/^\[tool output stored off the prompt: [\d,]+ chars, 2,000 lines from bash\]/);
    expect(t).toContain("artifact_fetch");
    expect(t.length).toBeLessThan(600 + 400);
  });
});
