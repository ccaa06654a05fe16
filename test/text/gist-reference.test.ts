/**
 * `gist` reads its input with regex passes a step at a time (issue 24: it was a tenth of the
 * gateway's main thread as a test per code point). It must give exactly what the per-code-point
 * definition gives, kept here as the reference, on any string: invisible and whitespace
 * characters at and across its step boundaries, surrogate pairs split by a step, lone surrogates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gist } from "../../src/agents/text/gist.js";
import { isInvisible } from "../../src/agents/text/visible.js";

/** The definition: per code point, a lone surrogate as U+FFFD, invisible dropped, whitespace runs one space, cut with "…". */
function reference(text: string, maxChars: number): string {
  if (!text || !(maxChars > 0)) return "";
  const limit = Math.floor(maxChars);
  const out: string[] = [];
  let pendingSpace = false;
  for (let ch of text) {
    if (ch.length === 1 && /[\ud800-\udfff]/.test(ch)) ch = "\ufffd";
    if (isInvisible(ch)) continue;
    if (/[\s\u0085]/u.test(ch)) {
      pendingSpace = out.length > 0;
      continue;
    }
    if (pendingSpace) {
      out.push(" ");
      pendingSpace = false;
    }
    out.push(ch);
    if (out.length > limit) break;
  }
  if (out.length <= limit) return out.join("");
  const kept = out.slice(0, Math.max(0, limit - 1));
  while (kept.length > 0 && kept[kept.length - 1] === " ") kept.pop();
  return kept.join("") + "…";
}

/** Characters where the two could differ: spaces of every kind, invisibles, pairs, lone halves. */
const PIECES = ["a", "Z", "é", "ß", "中", " ", "  ", "\n", "\r\n", "\t", "\u0085", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200b", "\u200d", "\u2066", "\u00ad", "\u0001", "\u001c", "\u007f", "\ufe0f", "\u{e0041}", "\u{1f600}", "\ud83d", "\ude00", "\ufdd0", "\u0301", "…", "x".repeat(300), " ".repeat(40), "\u200b".repeat(40)];

const textOf = fc.array(fc.constantFrom(...PIECES), { maxLength: 200 }).map((parts) => parts.join(""));

describe("gist", () => {
  it("equals the per-code-point definition on any mix of spaces, invisibles and surrogates", () => {
    fc.assert(
      fc.property(textOf, fc.integer({ min: 0, max: 1200 }), (text, max) => {
        expect(gist(text, max)).toBe(reference(text, max));
      }),
      { numRuns: 3000 },
    );
  });

  it("two lone halves with an invisible between them stay two replacement characters, never one pair", () => {
    expect(gist("aaaa\ud83d\ufeff\ude00", 5)).toBe("aaaa…");
    expect(gist("a\ud83d\u200b\ude00b", 10)).toBe("a\ufffd\ufffdb");
  });

  it("equals it on arbitrary UTF-16 and fractional budgets", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 3000 }), fc.double({ min: -1, max: 2000, noNaN: true }), (text, max) => {
        expect(gist(text, max)).toBe(reference(text, max));
      }),
      { numRuns: 2000 },
    );
  });

  it("equals it where a step boundary falls inside a whitespace run, an invisible run or a surrogate pair", () => {
    for (const limit of [1, 10, 200, 480]) {
      const step = Math.max(128, limit + 32);
      for (let at = step - 3; at <= step + 3; at++) {
        for (const filler of [" \u200b \n", "\u{1f600}", "\u200b\u200b", "\u0085 "]) {
          const text = `${"\u200b".repeat(at)}${filler}word ${"y".repeat(limit)}`;
          expect(gist(text, limit)).toBe(reference(text, limit));
          const spaced = `${" ".repeat(at - 1)}a${filler}${"b ".repeat(limit)}`;
          expect(gist(spaced, limit)).toBe(reference(spaced, limit));
        }
      }
    }
  });
});
