/**
 * fileNamesIn scans a request for `name.ext` tokens with the name pattern alone: the lazy path
 * prefix it had before matched the same names at the same ends (the leftmost name match starts
 * where the prefixed match's name starts) and cost a scan per start position. Same output as the
 * prefixed pattern on generated texts over the characters either pattern looks at.
 */
import { describe, expect, it } from "vitest";
import { fileNamesIn } from "../../src/agents/state/work-ledger.js";

const PREFIXED = /[\w@./~-]*?([\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})\b/g;

function reference(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(PREFIXED)) out.add(m[1]!.toLowerCase());
  return [...out];
}

/** A small deterministic generator (no Math.random: a failure must reproduce). */
function texts(n: number): string[] {
  const alphabet = "aZ9_-.@/~ :\né.mdTS";
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    const len = Math.floor(next() * 40);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(next() * alphabet.length)];
    out.push(s);
  }
  return out;
}

describe("fileNamesIn", () => {
  it("names the same files as the pattern with a lazy path prefix", () => {
    for (const t of [...texts(20_000), "fix src/a.b.ts and ~/x/README.md, see foo.bar.baz.", "v1.2 e.g. a.b@c.de/x.y"]) {
      expect(fileNamesIn(t)).toEqual(reference(t));
    }
  });

  it("lower-cases and deduplicates", () => {
    expect(fileNamesIn("Edit src/Foo.TS then ./lib/foo.ts and Foo.ts")).toEqual(["foo.ts"]);
  });
});
