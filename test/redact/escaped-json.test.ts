/**
 * Issue 40 (1): secrets inside escaped JSON. A JSON document captured as a string (a `write`
 * call's `content`, bounded JSON of tool arguments) has its quotes escaped (`\"`, `\\\"` one level
 * deeper) and its newlines as `\n`: rules keyed on a field name, a quote or a line end used not to
 * see them. Every rule class at every depth of escaping 1-4, the whole secret-shape corpus at each
 * depth, and the look-alikes at each depth (a coding agent needs them whole).
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/agents/text/redact.js";
import { formatLookalikes } from "./fixtures/format-lookalikes.js";
import { secretCorpus } from "./fixtures/secret-shapes.js";

const j = (...p: string[]): string => p.join("");
const leaks = (out: string, secret: string, n = 8): boolean => {
  for (let i = 0; i + n <= secret.length; i++) if (out.includes(secret.slice(i, i + n))) return true;
  return false;
};
/** `text` as the `content` of a `write` call's arguments, `depth` times over (depth 2: a JSON file holding such a call). */
const wrap = (text: string, depth: number): string => {
  let s = text;
  for (let d = 0; d < depth; d++) s = JSON.stringify({ path: `f${d}.json`, content: s });
  return s;
};
/** The inverse of `wrap`, or null when the redacted text is no longer JSON at some level. */
const unwrap = (text: string, depth: number): string | null => {
  let s: unknown = text;
  try {
    for (let d = 0; d < depth; d++) s = (JSON.parse(s as string) as { content: unknown }).content;
  } catch {
    return null;
  }
  return typeof s === "string" ? s : null;
};

const KEY_ID = "3f9a2c7e1b4d8f60a5c3e9b2d7f1a4c6e8b0d2f4";
const CLIENT_SECRET = j("Zx9kQ2mP", "7vL4nR8t");
const serviceAccount = (): string =>
  JSON.stringify(
    {
      type: "service_account",
      project_id: "demo-proj-4711",
      private_key_id: KEY_ID,
      private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n",
      client_email: "ci@demo-proj-4711.iam.gserviceaccount.com",
      client_id: "104729384756102938475",
      client_secret: CLIENT_SECRET,
    },
    null,
    2,
  );

describe("secrets inside escaped JSON (issue 40)", () => {
  it("a service-account key file written by a write call, at depths 1-4: key id, key and client secret gone, the rest whole", () => {
    for (let depth = 1; depth <= 4; depth++) {
      const out = redactSecrets(wrap(serviceAccount(), depth));
      expect(leaks(out, KEY_ID), `depth ${depth}: ${out}`).toBe(false);
      expect(leaks(out, CLIENT_SECRET)).toBe(false);
      expect(out).not.toContain("MIIEvQIBADANBgkq");
      // still the same JSON at every level, only the values replaced
      const inner = unwrap(out, depth);
      expect(inner, `depth ${depth}: ${out}`).not.toBeNull();
      const parsed = JSON.parse(inner!) as Record<string, string>;
      expect(parsed.private_key_id).toBe("[REDACTED:hex]");
      expect(parsed.client_secret).toBe("[REDACTED:secret]");
      expect(parsed.client_email).toBe("ci@demo-proj-4711.iam.gserviceaccount.com");
      expect(parsed.project_id).toBe("demo-proj-4711");
    }
  });

  // one of each rule that reads a key name, a quote, a header or a line: the secret, and the text it sits in
  const VALUE = j("Qw7Rt2Yu", "9Io4Pa6Sd");
  const HEX = "9c1e4b7a2d5f8e0b3c6a9d2e5f8b1c4a7d0e3f6b";
  const RULES: ReadonlyArray<[string, (v: string) => string, string]> = [
    ["json key name", (v) => JSON.stringify({ db_password: v }), VALUE],
    ["json key name, pretty", (v) => JSON.stringify({ auth: { client_secret: v } }, null, 2), VALUE],
    ["json key id (hex)", (v) => JSON.stringify({ signing_key_id: v }), HEX],
    ["*_CREDENTIALS= env line", (v) => `export GOOGLE_CREDENTIALS=${v}\nNEXT=1`, VALUE],
    ["*_CREDENTIALS= quoted", (v) => `GOOGLE_CREDENTIALS="${v}"\n`, VALUE],
    ["yaml key", (v) => `db:\n  password: "${v}"\n  host: db.local`, VALUE],
    ["url password", (v) => JSON.stringify({ url: `postgres://admin:${v}@db.local:5432/app` }), VALUE],
    ["authorization header (json)", (v) => JSON.stringify({ headers: { Authorization: `Bearer ${v}` } }), VALUE],
    ["authorization header (curl)", (v) => `curl -H "Authorization: token ${v}" https://api.example.com`, VALUE],
    ["cli flag, quoted value", (v) => `deploy --password "${v} x" --yes`, VALUE],
    ["aws secret", () => JSON.stringify({ aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY" }), "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"],
    ["docker config auth", (v) => JSON.stringify({ auths: { "registry.example.com": { auth: Buffer.from(`u:${v}`).toString("base64") } } }), Buffer.from(`u:${VALUE}`).toString("base64")],
    ["token after an escaped newline", () => `first line\n${j("glpat-", "xR7vK2mQ9pL4wN8sT1zY")}`, "xR7vK2mQ9pL4wN8sT1zY"],
  ];

  it("fast-check: every key-, quote-, header- and line-keyed rule at depth 0-4, inside other fields", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RULES),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom("", "note: see README\n", '{"a": 1}\n', "\\ a lone backslash\n"),
        fc.constantFrom("", "\ncommit 4b825dc642cb6eb9a060e54bf8d69288fbee4904", "\ttrailing"),
        ([name, make, secret], depth, before, after) => {
          const out = redactSecrets(wrap(before + make(VALUE) + after, depth));
          if (leaks(out, secret)) throw new Error(`${name} at depth ${depth} leaked: ${out}`);
          const inner = unwrap(out, depth);
          if (inner !== null && leaks(inner, secret)) throw new Error(`${name} at depth ${depth} leaked once decoded: ${inner}`);
          // what surrounds it is kept (the commit id a coding agent needs)
          if (after.startsWith("\ncommit")) expect(out).toContain("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
          expect(redactSecrets(out)).toBe(out);
        },
      ),
      { numRuns: 400, seed: 40 },
    );
  });

  it("the secret-shape corpus at depths 1-4: every shape caught", () => {
    const corpus = secretCorpus(1);
    for (let depth = 1; depth <= 4; depth++) {
      const missed = corpus.filter((s) => {
        const out = redactSecrets(wrap(s.text, depth));
        const inner = unwrap(out, depth);
        return leaks(out, s.secret) || (inner !== null && leaks(inner, s.secret));
      });
      expect(missed.map((s) => `depth ${depth}: ${s.shape}`)).toEqual([]);
    }
  });

  it("the look-alikes at depths 1-4 come out whole (commit ids, digests, lockfile hashes)", () => {
    const mined = JSON.parse(readFileSync(new URL("./fixtures/lookalikes.json", import.meta.url), "utf8")) as Array<{ kind: string; value: string; text: string }>;
    const all = [...mined, ...formatLookalikes()];
    for (let depth = 1; depth <= 4; depth++) {
      const altered = all.filter((l) => redactSecrets(wrap(l.text, depth)) !== wrap(l.text, depth)).map((l) => `depth ${depth}: ${l.kind}: ${l.text}`);
      expect(altered).toEqual([]);
    }
  });

  it("fast-check: arbitrary text at depth 0-4 is redacted idempotently and text without secrets is unchanged", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 4 }), (s, depth) => {
        const text = wrap(s, depth);
        const out = redactSecrets(text);
        expect(redactSecrets(out)).toBe(out);
        if (!out.includes("[REDACTED:")) expect(out).toBe(text);
      }),
      { numRuns: 500, seed: 41 },
    );
  });
});
