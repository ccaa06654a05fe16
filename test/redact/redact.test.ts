import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SECRET_CLASSES } from "../../src/agents/text/redact-passes.js";
import { redactSecrets } from "../../src/agents/text/redact.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

// Fake credentials, assembled at runtime so no literal looks like a real key in the repo.
const j = (...parts: string[]): string => parts.join("");
const FAKE = {
  openai: j("sk-", "proj-", "Ab12Cd34Ef56Gh78Ij90KlMnOpQr"),
  openaiLegacy: j("sk-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed"),
  anthropic: j("sk-", "ant-", "api03-AbCdEf1234567890_abcdefXYZ-98765"),
  awsAccess: j("AKIA", "IOSFODNN7EXAMPLE"),
  awsSession: j("ASIA", "Y34FZKBOKMUTVV7A"),
  awsSecret: j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
  ghp: j("ghp_", "abcdefghijklmnopqrstuvwxyz0123456789"),
  gho: j("gho_", "16C7e42F292c6912E7710c838347Ae178B4a"),
  ghs: j("ghs_", "0123456789abcdefghijABCDEFGHIJabcdef"),
  githubPat: j("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
  slack: j("xoxb-", "1234567890-0987654321-AbCdEfGhIjKl"),
  slackUser: j("xoxp-", "1111111111-2222222222-abcdefabcdef"),
  google: j("AIza", "SyA1234567890abcdefghijklmnopqrstu"),
  stripeLive: j("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"),
  stripeRestricted: j("rk_", "live_", "51HxYzAbCdEfGh12345678"),
  jwt: j(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  ),
  bearer: j("abc.DEF-123", "_xyz~456+7/8="),
  basic: j("dXNlcjpw", "YXNzd29yZA=="),
  hex: j("d41d8cd98f00b204", "e9800998ecf8427e"),
  sha40: j("3f2a9c1b7e4d5a6f8091", "a2b3c4d5e6f708192a3b"),
  base64: j("q7ZfX2Lk9PwR4mTzA1bN8cVdUe0", "Ys3GhJ5oKiQ6rWxE/yBp+HnMt"),
  base64url: j("Zm9vYmFy_LWJhei0xMjM0", "NTY3ODkwLWFiY2RlZmdoaWprbG1ub3A"),
} as const;

const PEM = j(
  "-----BEGIN RSA PRIVATE KEY-----\n",
  "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n",
  "q2Fh3jg3gYFq8Kk7s7oJsx8m7T5rJ9zq+Jx0Vb8zSOMEMORE\n",
  "-----END RSA PRIVATE KEY-----",
);

/** Redacts `secret` wherever it is planted, and the marker names `cls`. */
function expectRedacted(input: string, secret: string, cls: string): string {
  const out = redactSecrets(input);
  expect(out).not.toContain(secret);
  expect(out).toContain(`[REDACTED:${cls}]`);
  expect(redactSecrets(out)).toBe(out);
  return out;
}

describe("redactSecrets: each class", () => {
  const planted: Array<[string, string, string]> = [
    ["openai", FAKE.openai, "openai"],
    ["openai legacy", FAKE.openaiLegacy, "openai"],
    ["anthropic", FAKE.anthropic, "anthropic"],
    ["aws access key", FAKE.awsAccess, "aws_access_key"],
    ["aws session key", FAKE.awsSession, "aws_access_key"],
    ["github ghp", FAKE.ghp, "github"],
    ["github gho", FAKE.gho, "github"],
    ["github ghs", FAKE.ghs, "github"],
    ["github pat", FAKE.githubPat, "github"],
    ["slack bot", FAKE.slack, "slack"],
    ["slack user", FAKE.slackUser, "slack"],
    ["google", FAKE.google, "google"],
    ["stripe live", FAKE.stripeLive, "stripe"],
    ["stripe restricted", FAKE.stripeRestricted, "stripe"],
    ["jwt", FAKE.jwt, "jwt"],
    ["base64", FAKE.base64, "base64"],
    ["base64url", FAKE.base64url, "base64"],
  ];

  for (const [name, secret, cls] of planted) {
    it(`${name}: in prose, JSON, env line, URL query`, () => {
      expectRedacted(`I used ${secret} to call the API.`, secret, cls);
      const json = expectRedacted(JSON.stringify({ config: { value: secret }, n: 1 }), secret, cls);
      expect(() => JSON.parse(json)).not.toThrow();
      expectRedacted(`export SOME_VALUE=${secret}\nexport OTHER=1`, secret, cls);
      expectRedacted(`https://api.example.com/v1?q=${secret}&x=1`, secret, cls);
      expectRedacted(`(${secret})`, secret, cls);
    });
  }

  it("aws secret access key after its key name", () => {
    const out = expectRedacted(`aws_secret_access_key = ${FAKE.awsSecret}`, FAKE.awsSecret, "aws_secret");
    expect(out).toBe("aws_secret_access_key = [REDACTED:aws_secret]");
    expectRedacted(`AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}`, FAKE.awsSecret, "aws_secret");
  });

  it("Authorization: Bearer / Basic / other schemes, and a bare Bearer token", () => {
    expect(redactSecrets(`Authorization: Bearer ${FAKE.bearer}`)).toBe("Authorization: Bearer [REDACTED:bearer]");
    expect(redactSecrets(`-H "authorization: basic ${FAKE.basic}"`)).toBe('-H "authorization: basic [REDACTED:basic_auth]"');
    expect(redactSecrets(`Authorization: token ghx_1234567890abcdef`)).toBe(
      "Authorization: token [REDACTED:authorization]",
    );
    expect(redactSecrets(`{"Authorization": "Bearer ${FAKE.bearer}"}`)).toBe('{"Authorization": "Bearer [REDACTED:bearer]"}');
    expectRedacted(`send it with Bearer ${FAKE.bearer} please`, FAKE.bearer, "bearer");
  });

  it("key=value, key: value and \"key\": \"value\" keep the key and drop the value", () => {
    expect(redactSecrets(`OPENAI_API_KEY=abc123def456`)).toBe("OPENAI_API_KEY=[REDACTED:secret]");
    expect(redactSecrets(`db_password: hunter22`)).toBe("db_password: [REDACTED:secret]");
    expect(redactSecrets(`{"apiKey": "short1", "password":"p@ss \\"word\\"", "max_tokens": 4096}`)).toBe(
      '{"apiKey": "[REDACTED:secret]", "password":"[REDACTED:secret]", "max_tokens": 4096}',
    );
    expect(redactSecrets(`client_secret='abc def ghi'`)).toBe("client_secret='[REDACTED:secret]'");
    expect(redactSecrets(`GITHUB_TOKEN=mytokenvalue`)).toBe("GITHUB_TOKEN=[REDACTED:secret]");
    expect(redactSecrets(`x-api-key: 0a1b2c3d`)).toBe("x-api-key: [REDACTED:secret]");
    expect(redactSecrets(`private_key = abcdefgh`)).toBe("private_key = [REDACTED:secret]");
    expect(redactSecrets(`passwd=letmein1 access_key=AbCdEfGh`)).toBe("passwd=[REDACTED:secret] access_key=[REDACTED:secret]");
    expect(redactSecrets(`SECRET_KEY=django-insecure-xyz`)).toBe("SECRET_KEY=[REDACTED:secret]");
    expect(redactSecrets(`--token=abcd1234 next`)).toBe("--token=[REDACTED:secret] next");
  });

  it("long values are redacted whole, not just their first part", () => {
    const long = "Ab1".repeat(400);
    expect(redactSecrets(`password=${long} tail`)).toBe("password=[REDACTED:secret] tail");
    expect(redactSecrets(`"password": "${long} with spaces"`)).toBe('"password": "[REDACTED:secret]"');
    expect(redactSecrets(`https://user:${long}@host/x`)).toBe("https://user:[REDACTED:url_password]@host/x");
    expect(redactSecrets(`${FAKE.awsAccess}${"X".repeat(50)}`)).toBe("[REDACTED:aws_access_key]");
  });

  it("a provider key behind a key name keeps the more specific class", () => {
    expect(redactSecrets(`OPENAI_API_KEY=${FAKE.openai}`)).toBe("OPENAI_API_KEY=[REDACTED:openai]");
    expect(redactSecrets(`"token": "${FAKE.ghp}"`)).toBe('"token": "[REDACTED:github]"');
  });

  it("PEM private-key blocks, multi-line, collapsed to one line, and truncated", () => {
    expect(redactSecrets(`key:\n${PEM}\nafter`)).toBe("key:\n[REDACTED:private_key]\nafter");
    expect(redactSecrets(PEM.replace(/\n/g, " ") + " then tests ran")).toBe("[REDACTED:private_key] then tests ran");
    const openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";
    expect(redactSecrets(`a ${openssh} b`)).toBe("a [REDACTED:private_key] b");
    // Truncated (a gist cut the block): everything after BEGIN is dropped.
    expect(redactSecrets("cat id_rsa -> -----BEGIN EC PRIVATE KEY----- MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oZ0FBtb…")).toBe(
      "cat id_rsa -> [REDACTED:private_key]",
    );
    // Two blocks, prose between them survives.
    expect(redactSecrets(`${PEM} middle ${PEM}`)).toBe("[REDACTED:private_key] middle [REDACTED:private_key]");
  });

  it("URL credentials: password redacted, user and host kept", () => {
    expect(redactSecrets("postgres://admin:hunter2@db.example.com:5432/app")).toBe(
      "postgres://admin:[REDACTED:url_password]@db.example.com:5432/app",
    );
    expect(redactSecrets("git clone https://bot:p4ss%21word@github.com/o/r.git")).toBe(
      "git clone https://bot:[REDACTED:url_password]@github.com/o/r.git",
    );
    expect(redactSecrets("redis://:onlypass@cache:6379")).toBe("redis://:[REDACTED:url_password]@cache:6379");
  });

  it("hex with 0x prefix and hex embedded between separators", () => {
    // issue 28: a hex run is a secret by its context (the key before it names a credential), not by its length
    expect(redactSecrets(`signing_key=0x${FAKE.hex}`)).toBe("signing_key=[REDACTED:hex]");
    expect(redactSecrets(`session=${FAKE.hex}-v2`)).toBe("session=[REDACTED:hex]-v2");
    expect(redactSecrets(`{"private_key_id": "${FAKE.sha40}"}`)).toBe('{"private_key_id": "[REDACTED:hex]"}');
    expect(redactSecrets(`SIGNING_KEY=${FAKE.sha40}`)).toBe("SIGNING_KEY=[REDACTED:hex]");
    // and a bare hex run is what an agent needs to name a commit, a digest or an object
    for (const keep of [`commit ${FAKE.sha40}`, `git checkout ${FAKE.sha40}`, `0x${FAKE.hex}`, `objects/2d/${FAKE.sha40.slice(2)}`, `sha256:${FAKE.hex}${FAKE.hex}`]) {
      expect(redactSecrets(keep)).toBe(keep);
    }
  });

  it("SECRET_CLASSES documents every class the redactor emits", () => {
    const documented = new Set<string>(SECRET_CLASSES);
    const emitted = new Set<string>();
    const all = [
      ...Object.values(FAKE),
      `{"private_key_id": "${FAKE.sha40}"}`,
      j("dop_v1_", FAKE.hex, FAKE.hex),
      j("dckr_pat_", "Zq8Lm2Nx7Pv4Rt1Ks9Jd3Hf6Gb0"),
      PEM,
      `aws_secret_access_key=${FAKE.awsSecret}`,
      `Authorization: Basic ${FAKE.basic}`,
      `Authorization: Bearer ${FAKE.bearer}`,
      "Authorization: token abc12345",
      "password=hunter22",
      "https://u:p@h",
      "psql --password hunter22",
      j("https://hooks.slack.com/services/", "T0AB12CD3/B0EF45GH6/q8Lm2Nx7Pv4Rt1Ks9Jd3Hf6G"),
      j("glpat-", "xR7vK2mQ9pL4wN8sT1zY"),
      j("hf_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
      j("npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ].join(" \n ");
    for (const m of redactSecrets(all).matchAll(/\[REDACTED:([a-z0-9_]+)\]/g)) emitted.add(m[1] ?? "");
    for (const cls of emitted) expect(documented.has(cls as never)).toBe(true);
    expect([...documented].sort()).toEqual([...emitted].sort());
  });
});

describe("redactSecrets: leaves ordinary text alone", () => {
  const keep = [
    "Refactored src/agents/context-gauge.ts and test/state/context-state.test.ts",
    "Edited src/agents/pi-embedded-runner/ContextManagerV2/extensionsLoader2.ts",
    "node_modules/@mariozechner/pi-coding-agent/dist/core/extensions/types.d.ts",
    "Fixed in commit 3f2a9c1, see also a1b2c3d4e5f6 and 0f1e2d3c",
    "session 550e8400-e29b-41d4-a716-446655440000 resumed",
    "The bearer of bad news; Bearer authentication is configured elsewhere.",
    "Authorization: required for admin routes",
    "We spent 162431 tokens; max_tokens: 4096, maxTokens=2000, input_tokens: 12, tokens: 1234",
    "const token = getToken(); if (password === null) return;",
    "token: null, secret: true, apiKey: undefined",
    "Use scikit-learn (sk-learn-style-naming-here) for the model",
    "CHECKPOINT_SCHEMA_VERSION_WITH_A_VERY_LONG_CONSTANT_NAME",
    "thisIsAVeryLongCamelCaseIdentifierNameUsedInTheCodebase2",
    "Привет, мир! 日本語のテキスト、絵文字 👍🏽 and café",
    "https://example.com/docs/getting-started?lang=en#install",
    "x = a + b / c == d - e; arr[i] = `tmpl ${v}`",
    "The secret is to keep functions small.",
    "Decision: ship the tokenizer first, password reset flow later.",
  ];
  for (const text of keep) {
    it(`keeps ${JSON.stringify(text.slice(0, 50))}`, () => {
      expect(redactSecrets(text)).toBe(text);
    });
  }

  it("returns empty input unchanged", () => {
    expect(redactSecrets("")).toBe("");
  });
});

describe("redactSecrets: idempotent", () => {
  const fragments = [
    ...Object.values(FAKE),
    PEM,
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "Authorization: ",
    "Bearer ",
    "Basic ",
    "password=",
    '"apiKey": "',
    "token: ",
    "https://",
    "u:p@",
    "@",
    ":",
    "=",
    '"',
    "'",
    "\\",
    " ",
    "\n",
    "[REDACTED:hex]",
    "[REDACTED:",
    "]",
    "0x",
    "eyJ",
    ".",
    "-",
    "_",
    "/",
    "sk-",
    "AKIA",
    "abc",
    "A1b2",
    "AKIAAKIAAKIAAKIAAKIA",
    "ABCDEFGHIJKLMNOP1234",
    "ghp_",
    "xoxb-",
    "sk_live_",
    "AIza",
    "github_pat_",
    "Authorization: Basic ",
    "aws_secret_access_key=",
  ];

  it("redact(redact(x)) === redact(x) for strings built from secret fragments", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...fragments), { maxLength: 30 }), (parts) => {
        const once = redactSecrets(parts.join(""));
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 500) },
    );
  });

  it("redact(redact(x)) === redact(x) for arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (s) => {
        const once = redactSecrets(s);
        expect(redactSecrets(once)).toBe(once);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it("never lets a planted fake key through, whatever surrounds it", () => {
    const keys = [FAKE.openai, FAKE.anthropic, FAKE.ghp, FAKE.slack, FAKE.google, FAKE.jwt, FAKE.awsAccess, FAKE.stripeLive];
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(...keys),
        fc.constantFrom(" ", "\n", "=", ":", '"', "'", "(", ",", "\t", "> "),
        fc.constantFrom(" ", "\n", '"', "'", ")", ",", ".", ";", ""),
        fc.string({ maxLength: 40 }),
        (before, key, open, close, after) => {
          const out = redactSecrets(`${before}${open}${key}${close}${after}`);
          expect(out).not.toContain(key);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
    );
  });
});

/** Deterministic base64-alphabet noise (LCG), so the test input is the same on every run. */
function pseudoRandomBase64(n: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let x = 12345;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(alphabet[(x >>> 16) & 63] ?? "A");
  }
  return out.join("");
}

describe("redactSecrets: linear on adversarial 1 MB inputs", () => {
  // A pattern with quadratic backtracking needs ~10^12 steps on these inputs and would
  // blow the per-test timeout by orders of magnitude; the linear version takes milliseconds.
  const MB = 1 << 20;
  const rep = (s: string): string => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
  const cases: Array<[string, string, (out: string) => void]> = [
    ["one letter run (is hex, kept: no credential key before it)", rep("a"), (o) => expect(o).toBe(rep("a"))],
    ["non-hex letter run", rep("z"), (o) => expect(o).toBe(rep("z"))],
    ["hex run ending in a non-hex letter", rep("a").slice(1) + "g", (o) => expect(o.length).toBe(MB)],
    ["low-variety mixed run", rep("xY3"), (o) => expect(o).toBe(rep("xY3"))],
    ["random base64 run", pseudoRandomBase64(MB), (o) => expect(o).toBe("[REDACTED:base64]")],
    ["eyJ repeated (JWT start, no dots)", rep("eyJ"), (o) => expect(o).toBe(rep("eyJ"))],
    ["JWT-like segments without enough dots", rep("eyJabcdefgh."), (o) => expect(o).not.toContain("eyJabcdefgh.eyJabcdefgh.eyJ")],
    ["sk- repeated", rep("sk-"), (o) => expect(o).toBe(rep("sk-"))],
    ["token repeated", rep("token"), (o) => expect(o).toBe(rep("token"))],
    ["key chars without separator", rep("a.b-c_secret"), (o) => expect(o).toBe(rep("a.b-c_secret"))],
    ["unterminated quoted values", rep('token:"\\'), (o) => expect(o).not.toMatch(/token:"\\t/)],
    ["scheme separators", rep("a://"), (o) => expect(o).toBe(rep("a://"))],
    ["credentials without @", rep("a://b:c"), (o) => expect(o).toBe(rep("a://b:c"))],
    ["Bearer followed by spaces", "Bearer" + rep(" "), (o) => expect(o.length).toBe(MB + 6)],
    ["Bearer repeated", rep("Bearer "), (o) => expect(o).toBe(rep("Bearer "))],
    ["Authorization repeated", rep("Authorization: "), (o) => expect(o).toBe(rep("Authorization: "))],
    ["PEM BEGIN fragments", rep("-----BEGIN "), (o) => expect(o).toBe(rep("-----BEGIN "))],
    ["PEM BEGIN without END", "x " + rep("-----BEGIN PRIVATE KEY-----"), (o) => expect(o).toBe("x [REDACTED:private_key]")],
    ["AKIA repeated", rep("AKIA"), (o) => expect(o).not.toMatch(/AKIA[A-Z0-9]{16}/)],
    ["dashes", rep("-"), (o) => expect(o).toBe(rep("-"))],
    ["equals", rep("="), (o) => expect(o).toBe(rep("="))],
    ["quotes and backslashes", rep('"\\'), (o) => expect(o).toBe(rep('"\\'))],
    ["whitespace", rep(" \t\n"), (o) => expect(o).toBe(rep(" \t\n"))],
    ["prose", rep("The quick brown fox jumps over the lazy dog. "), (o) => expect(o).toBe(rep("The quick brown fox jumps over the lazy dog. "))],
  ];
  for (const [name, input, check] of cases) {
    it(name, { timeout: TEST_TIMEOUT_MS }, () => {
      check(redactSecrets(input));
    });
  }
});
