import { describe, expect, it } from "vitest";
import { AGED_ARG_MARKER, agedArgMarker, longArgs, stashTextOf, withAgedArgs } from "../../src/agents/artifacts/offload.js";

const H = `ocm_artifact:v1:sha256:${"a".repeat(64)}`;
const long = (tag: string, n = 300) => `${tag}\n${"x".repeat(n)}`;

describe("aged call arguments", () => {
  it("finds long string arguments at any depth, in order, and leaves short ones", () => {
    const input = { path: "src/a.ts", edits: [{ oldText: long("old"), newText: long("new") }, { oldText: "short", newText: "s" }], flag: true };
    expect(longArgs(input).map((a) => a.path)).toEqual(["edits[0].oldText", "edits[0].newText"]);
    expect(longArgs({ command: "ls" })).toEqual([]);
    expect(longArgs(null)).toEqual([]);
  });

  it("stashes one argument as it is and several under a header each", () => {
    expect(stashTextOf([{ path: "content", text: "abc" }])).toBe("abc");
    expect(stashTextOf([{ path: "a", text: "1" }, { path: "b", text: "2" }])).toBe("[argument a]\n1\n[argument b]\n2");
  });

  it("replaces only the long strings, copies containers, never mutates the input", () => {
    const input = { path: "src/a.ts", content: long("first line here") };
    const before = JSON.stringify(input);
    const out = withAgedArgs(input, H) as Record<string, string>;
    expect(JSON.stringify(input)).toBe(before);
    expect(out.path).toBe("src/a.ts");
    expect(out.content!.startsWith(AGED_ARG_MARKER)).toBe(true);
    expect(out.content).toContain(H);
    expect(out.content).toContain('"first line here"');
    expect(out.content).toContain("316 chars, 2 lines");
    // idempotent: a marker is never aged again
    expect(withAgedArgs(out, H)).toEqual(out);
  });

  it("the first-line hint is redacted, bounded and free of invisible characters", () => {
    const m = agedArgMarker(`const k = "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2"; \u202e\u200b${"y".repeat(200)}\nrest`, H);
    expect(m).not.toContain("ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2");
    expect(m).not.toMatch(/[\u202e\u200b]/);
    expect(m.length).toBeLessThan(300);
    expect(m.split("\n")).toHaveLength(1);
  });
});
