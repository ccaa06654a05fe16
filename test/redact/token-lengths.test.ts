/**
 * Issue 40 (2): a distinctive token prefix followed by fewer or more characters than today's
 * format (a truncated token, an older or newer format) is still a secret; a prefix that also
 * starts names (`hf_hub_download`, `npm_config_registry`) needs a random-looking body when short.
 * The table in docs/security.md ("Token prefixes and lengths") is this file's list.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/agents/text/redact.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** prefix, body alphabet, shortest body caught, today's body length */
const PREFIXES: ReadonlyArray<[string, string, number, number]> = [
  ["sk-ant-api03-", ALNUM, 6, 95],
  ["sk_live_", ALNUM, 6, 99],
  ["rk_test_", ALNUM, 6, 99],
  ["ghp_", ALNUM, 8, 36],
  ["gho_", ALNUM, 8, 36],
  ["github_pat_", ALNUM, 8, 82],
  ["xoxb-", ALNUM, 6, 50],
  ["xoxe-", ALNUM, 6, 50],
  ["xapp-", ALNUM, 6, 50],
  ["glpat-", ALNUM, 8, 20],
  ["glrt-", ALNUM, 8, 20],
  ["hf_", ALNUM, 12, 34],
  ["api_org_", ALNUM, 12, 34],
  ["npm_", ALNUM, 12, 36],
  ["AIza", ALNUM, 12, 35],
  ["AKIA", UPPER, 8, 16],
  ["dop_v1_", HEX, 16, 64],
  ["rubygems_", HEX, 16, 48],
  ["pul-", HEX, 20, 40],
  ["sntrys_", ALNUM, 16, 60],
  ["GOCSPX-", ALNUM, 8, 28],
  ["PMAK-", HEX, 8, 59],
  ["NRAK-", UPPER, 10, 27],
  ["AGE-SECRET-KEY-1", UPPER, 8, 58],
];

/** A random body of `n` characters of `alphabet` with at least one digit and, for mixed alphabets, both cases. */
const body = (alphabet: string, n: number) =>
  fc.array(fc.integer({ min: 0, max: alphabet.length - 1 }), { minLength: n, maxLength: n }).map((ix) => {
    const chars = ix.map((i) => alphabet[i]!);
    chars[0] = "7";
    if (n > 2 && alphabet === ALNUM) {
      chars[1] = "Q";
      chars[2] = "x";
    }
    return chars.join("");
  });

describe("distinctive prefixes of an unexpected length (issue 40)", () => {
  it("fast-check: a body from the shortest caught to twice today's length, in a line, a quote or JSON, leaves nothing", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PREFIXES).chain(([prefix, alphabet, min, full]) =>
          fc.tuple(fc.constant(prefix), fc.integer({ min, max: 2 * full }).chain((n) => body(alphabet, n))),
        ),
        fc.constantFrom(["", ""], [" ", " "], ['"', '"'], ["\n", "\n"], ["(", ")"], ['{"t":"', '"}']),
        ([prefix, b], [open, close]) => {
          const out = redactSecrets(`token in use ${open}${prefix}${b}${close} for ci`);
          // nothing of the body is left: not its first 6 characters, not its last 6
          expect(out, out).not.toContain(b.slice(0, 6));
          expect(out, out).not.toContain(b.slice(-6));
        },
      ),
      { numRuns: 800, seed: 402 },
    );
  });

  it("names that share a prefix are kept", () => {
    const names = [
      "hf_hub_download(repo_id)",
      "from huggingface_hub import hf_hub_url",
      "hf_TransformersConfig",
      "hf_token = os.environ['HF_TOKEN']",
      "npm_config_registry=https://registry.npmjs.org/",
      "process.env.npm_package_version",
      "npm_lifecycle_event",
      "npm_execpath and npm_node_execpath",
      "$npm_config_cache/_cacache",
      "sk-learn-pipeline-2024",
      "ghp_ is the prefix of a classic token",
      "glpat- tokens expire",
      "AKIA prefix marks an access key id",
      "the api_org_ prefix",
      "sk_live_ and sk_test_ keys",
    ];
    for (const n of names) expect(redactSecrets(n)).toBe(n);
  });

  it("each prefix's example from the docs table: truncated, and one longer than today", () => {
    const cases = [
      "glpat-Xy12abcd", // 8 chars (today 20)
      "hf_aB3dE5gH7jK9", // 12 chars, random (today 34)
      "npm_a1B2c3D4e5F6", // 12 chars, random (today 36)
      "ghp_a1B2c3D4", // 8 chars (today 36)
      "xoxb-1234-5678", // 9 chars (today ~50)
      "sk-ant-api03-Zx", // 6 chars after sk-ant-
      "AKIAIOSFODNN", // 8 chars (today 16)
      `dop_v1_${"ab12".repeat(20)}`, // 80 hex (today 64)
      `PMAK-${"a1".repeat(40)}`,
      `NRAK-${"A1".repeat(20)}`,
      `AGE-SECRET-KEY-1${"Q7".repeat(40)}`,
      `12345678:AA${"x1Y2".repeat(12)}`, // a Telegram bot token longer than 33
    ];
    for (const c of cases) {
      const out = redactSecrets(`value ${c} end`);
      expect(out, c).toMatch(/^value \[REDACTED:[a-z_]+\] end$/);
    }
  });
});
