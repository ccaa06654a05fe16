/**
 * Issue 28 (2, 3): the secret-shape corpus (135 generated shapes, fixtures/secret-shapes.ts) and
 * the look-alikes (mined from the real sessions by bench/mine-lookalikes.ts, plus known formats).
 * Secrets: none of their 8-character pieces may survive, but the listed gaps (docs/security.md);
 * look-alikes: every value comes out whole. The figures in docs/security.md come from
 * `npx tsx bench/redaction-corpus.ts`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/agents/text/redact.js";
import { formatLookalikes } from "./fixtures/format-lookalikes.js";
import { secretCorpus } from "./fixtures/secret-shapes.js";

const leaks = (out: string, secret: string): boolean => {
  for (let i = 0; i + 8 <= secret.length; i++) if (out.includes(secret.slice(i, i + 8))) return true;
  return false;
};

/** Shapes with nothing to recognise them by in the text itself (docs/security.md, "Known redaction gaps"). */
export const SHAPE_GAPS: readonly string[] = [];

describe("secret and look-alike corpora (issue 28)", () => {
  it("at least 100 secret shapes, each caught (3 samples of each)", () => {
    const corpus = secretCorpus(3);
    expect(new Set(corpus.map((s) => s.shape)).size).toBeGreaterThanOrEqual(100);
    const missed = [...new Set(corpus.filter((s) => leaks(redactSecrets(s.text), s.secret)).map((s) => s.shape))];
    expect(missed).toEqual(SHAPE_GAPS);
  });

  it("at least 100 mined look-alikes and the known formats come out whole", () => {
    const mined = JSON.parse(readFileSync(new URL("./fixtures/lookalikes.json", import.meta.url), "utf8")) as Array<{ kind: string; value: string; text: string }>;
    expect(mined.length).toBeGreaterThanOrEqual(100);
    const all = [...mined, ...formatLookalikes()];
    const altered = all.filter((l) => !redactSecrets(l.text).includes(l.value)).map((l) => `${l.kind}: ${l.text}`);
    expect(altered).toEqual([]);
  });
});
