/**
 * The per-rule prefilter of the maintained rule set (secret-rules.ts, issue 24) skips a rule only
 * on a text none of its matches could be in: the guarded scan reports exactly what every rule on
 * every text reports, on the secret shapes, the look-alikes, the redaction cases and the real
 * sessions' texts, and each preset rule that reports anything in the shapes has a guard that let
 * it run there.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { secretRuleRanges } from "../../src/agents/text/secret-rules.js";
import { formatLookalikes } from "./fixtures/format-lookalikes.js";
import { secretCorpus } from "./fixtures/secret-shapes.js";
import { BENIGN_CASES, SECRET_CASES } from "./corpus.js";
import { transcriptFiles, transcriptPath } from "../helpers/transcripts.js";

/** Every string in a JSON value (the transcripts' message texts, tool outputs, arguments). */
function strings(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
}

function transcriptTexts(): string[] {
  const out: string[] = [];
  for (const f of transcriptFiles(".json")) strings(JSON.parse(readFileSync(transcriptPath(f), "utf8")), out);
  return out.filter((s) => s.length >= 8);
}

describe("the rule set's prefilter changes nothing it reports", () => {
  it("on the secret shapes, the look-alikes and the redaction cases", () => {
    const mined = JSON.parse(readFileSync(new URL("./fixtures/lookalikes.json", import.meta.url), "utf8")) as Array<{ text: string }>;
    const texts = [...secretCorpus(3).map((s) => s.text), ...mined.map((l) => l.text), ...formatLookalikes().map((l) => l.text), ...SECRET_CASES.map((c) => c.text), ...BENIGN_CASES];
    const reported = texts.filter((t) => secretRuleRanges(t, false).length > 0);
    expect(reported.length).toBeGreaterThan(20); // the rule set does report in the shapes
    for (const t of texts) expect(secretRuleRanges(t), t).toEqual(secretRuleRanges(t, false));
  });

  it("on every string of the real sessions (tool outputs, code, logs)", () => {
    const texts = transcriptTexts();
    expect(texts.length).toBeGreaterThan(1000);
    const differ = texts.filter((t) => JSON.stringify(secretRuleRanges(t)) !== JSON.stringify(secretRuleRanges(t, false)));
    expect(differ.map((t) => t.slice(0, 200))).toEqual([]);
  });
});
