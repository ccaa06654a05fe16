/** Strict handles: anything that is not exactly ocm_artifact:v1:sha256:<64 lowercase hex> is refused with a reason. */
import { describe, expect, it } from "vitest";
import { ArtifactHandleError, formatHandle, HANDLE_LENGTH, parseHandle } from "../../src/agents/artifacts/handle.js";

const HEX = "0123456789abcdef".repeat(4);
const GOOD = `ocm_artifact:v1:sha256:${HEX}`;

describe("artifact handles", () => {
  it("round-trips a full sha256", () => {
    expect(formatHandle(HEX)).toBe(GOOD);
    expect(parseHandle(GOOD)).toBe(HEX);
    expect(GOOD.length).toBe(HANDLE_LENGTH);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["truncated digest", GOOD.slice(0, -1), /truncated \(63 of 64/],
    ["prefix only", "ocm_artifact:v1:sha256:", /truncated \(0 of 64/],
    ["uppercase digest", `ocm_artifact:v1:sha256:${HEX.toUpperCase()}`, /lowercase/],
    ["uppercase prefix", GOOD.replace("ocm_artifact", "OCM_ARTIFACT"), /prefix is lowercase/],
    ["one char too many", `${GOOD}0`, /too long/],
    ["traversal in the digest", `ocm_artifact:v1:sha256:../../../../etc/passwd${"a".repeat(20)}`, /only 0-9 and a-f/],
    ["traversal instead of a handle", "../../secrets.txt", /not an artifact handle/],
    ["absolute path", "/etc/passwd", /not an artifact handle/],
    ["other version", GOOD.replace(":v1:", ":v2:"), /not an artifact handle/],
    ["other algorithm", GOOD.replace("sha256", "sha1"), /not an artifact handle/],
    ["leading space", ` ${GOOD.slice(1)}`, /printable ASCII/],
    ["trailing newline", `${GOOD.slice(0, -1)}\n`, /printable ASCII/],
    ["NUL byte", `${GOOD.slice(0, -1)}\0`, /printable ASCII/],
    ["non-ASCII look-alike", GOOD.replace("a", "а"), /printable ASCII/],
    ["empty", "", /empty/],
    ["not a string", 42, /is a string/],
    ["null", null, /got null/],
  ];
  for (const [name, input, reason] of bad) {
    it(`refuses ${name}`, () => {
      expect(() => parseHandle(input)).toThrow(ArtifactHandleError);
      expect(() => parseHandle(input)).toThrow(reason);
    });
  }
});
