/**
 * Both directions of redaction on a labelled corpus (test/redact/corpus.ts): how many secrets
 * are removed (none of their 8-character pieces survive) and how many look-alikes come out
 * unchanged. The figures are printed and quoted in docs/security.md.
 */
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/agents/text/redact.js";
import { BENIGN_CASES, SECRET_CASES } from "./corpus.js";

const leaks = (out: string, secret: string): boolean => {
  for (let i = 0; i + 8 <= secret.length; i++) if (out.includes(secret.slice(i, i + 8))) return true;
  return false;
};

describe("labelled redaction corpus", () => {
  it("removes every secret with a recognisable shape and leaves every look-alike unchanged", () => {
    const missed = SECRET_CASES.filter((c) => leaks(redactSecrets(c.text), c.secret));
    const changed = BENIGN_CASES.filter((t) => redactSecrets(t) !== t);
    const caught = SECRET_CASES.length - missed.length;
    const kept = BENIGN_CASES.length - changed.length;
    console.log(
      `redaction corpus: ${caught}/${SECRET_CASES.length} secrets removed (${((100 * caught) / SECRET_CASES.length).toFixed(1)}%), ` +
        `${changed.length}/${BENIGN_CASES.length} look-alikes changed (${((100 * changed.length) / BENIGN_CASES.length).toFixed(1)}% false positives)`,
    );
    // the only misses are the documented gaps (secrets with no shape at all)
    expect(missed.map((c) => c.text)).toEqual(SECRET_CASES.filter((c) => c.gap).map((c) => c.text));
    expect(changed.map((t) => [t, redactSecrets(t)])).toEqual([]);
    expect(kept).toBe(BENIGN_CASES.length);
  });
});
