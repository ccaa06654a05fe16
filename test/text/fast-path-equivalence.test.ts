/**
 * The shortcuts of safeGist (no second gist when the first is within the budget and the
 * redaction changed nothing) and of toSingleLine / quoteUntrusted (plain one-line ASCII returned
 * as it is, no second redaction then) must give exactly what their full definitions give, here
 * written out as they were: on strings built of the characters where they could differ, and on
 * every string of the real transcripts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutHead, gist, safeGist } from "../../src/agents/text/gist.js";
import { redactSecrets } from "../../src/agents/text/redact.js";
import { visibleText } from "../../src/agents/text/visible.js";
import { toSingleLine } from "../../src/agents/inject/quote.js";
import { readTranscriptJson, transcriptFiles } from "../helpers/transcripts.js";

const fullSafeGist = (text: string, maxChars: number): string => (text ? gist(redactSecrets(gist(redactSecrets(cutHead(text, maxChars * 16 + 4096)), maxChars * 4 + 256)), maxChars) : "");
const fullSingleLine = (text: string): string =>
  visibleText(text.replace(/[\r\n\t\v\f\u0085\u2028\u2029]/g, " "))
    .replace(/\s+/g, " ")
    .trim();

const PIECES = ["a", "Z", "é", "…", "\u2026 ", " ", "  ", "\n", "\t", "\u0085", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200b", "\u0001", "\u007f", "\ufe0f", "\u{1f600}", "\ud83d", "\ude00", "…", "x".repeat(90), " ".repeat(5), "password=hunter2hunter2", "sk-ant-api03-" + "A1b2C3d4".repeat(8), "\\\""];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(""));
const SIZES = [1, 2, 7, 40, 60, 80, 200, 300];

function transcriptStrings(): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (v && typeof v === "object") for (const x of Object.values(v)) walk(x);
  };
  for (const f of transcriptFiles(".json").filter((f) => f !== "index.json")) walk(readTranscriptJson(f));
  return out;
}

describe("text fast paths", () => {
  it("safeGist, toSingleLine and quoteUntrusted equal their full definitions on generated strings", () => {
    fc.assert(
      fc.property(text, fc.constantFrom(...SIZES), (s, n) => {
        expect(safeGist(s, n)).toBe(fullSafeGist(s, n));
        expect(toSingleLine(s)).toBe(fullSingleLine(s));
        // quoteUntrusted's skipped second redaction rests on this
        const r = redactSecrets(s);
        expect(redactSecrets(r)).toBe(r);
      }),
      { numRuns: 3000 },
    );
  });

  it("and on every string of the real transcripts", () => {
    const strings = transcriptStrings();
    expect(strings.length).toBeGreaterThan(1000);
    let mismatches = 0;
    for (const s of strings) {
      for (const n of [40, 80, 300]) if (safeGist(s, n) !== fullSafeGist(s, n)) mismatches++;
      if (toSingleLine(s) !== fullSingleLine(s)) mismatches++;
    }
    expect(mismatches).toBe(0);
  });
});
