/** The pattern passes of redactSecrets (redact.ts), one per kind of credential, and long hex/base64 runs. */

/** The classes `redactSecrets` emits (docs/security.md says what each catches) and the marker no pass matches again. */
export const SECRET_CLASSES = [
  "private_key", "url_password", "bearer", "basic_auth", "authorization", "anthropic", "openai", "stripe",
  "github", "slack", "slack_webhook", "gitlab", "huggingface", "npm", "google", "aws_access_key", "aws_secret",
  "token", "secret", "password", "jwt", "hex", "secretlint", "base64",
] as const;

export type SecretClass = (typeof SECRET_CLASSES)[number];

export const MARKER_PREFIX = "[REDACTED:";
export const marker = (cls: SecretClass): string => `${MARKER_PREFIX}${cls}]`;
export const isMarker = (s: string): boolean => s.startsWith(MARKER_PREFIX);

export type Replacer = (text: string) => string;
/** What every match of a pattern contains: a text without it is not scanned. */
type Hint = string | RegExp;
/** A replace callback (a method: its groups and offset are typed by each pass). */
interface To {
  to(all: string, ...rest: unknown[]): string;
}

/** The pass of one pattern: `to` for each match, skipped for a text without `hint`. */
function pass(hint: Hint, re: RegExp, to: To["to"]): Replacer {
  return (text) => ((typeof hint === "string" ? text.includes(hint) : hint.test(text)) ? text.replace(re, to) : text);
}

// --- PEM private keys --------------------------------------------------------
// The body between BEGIN and END is found by index, never by a regex quantifier.
const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

const redactPrivateKeys: Replacer = (text) => {
  if (!text.includes("PRIVATE KEY")) return text;
  let out = "";
  let pos = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    PEM_END.lastIndex = m.index + m[0].length;
    const end = PEM_END.exec(text);
    out += text.slice(pos, m.index) + marker("private_key");
    // a truncated key (no END) is redacted to the end: leaking a key prefix is worse than losing prose
    pos = end ? end.index + end[0].length : text.length;
    PEM_BEGIN.lastIndex = pos;
    if (!end) break;
  }
  return out + text.slice(pos);
};

// --- URL credentials ---------------------------------------------------------
// Runs stop at "/" (never into the next URL); one slash too: path.resolve turns `https://` into `https:/`.
const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/?)([^\s/?#@:]*):([^\s/?#@]+)@/g;

const urlPassword = (all: string, scheme: string, user: string, pwd: string): string =>
  isMarker(pwd) ? all : `${scheme}${user}:${marker("url_password")}@`;

// --- Authorization headers and bare Bearer tokens -----------------------------
const AUTH_HEADER =
  /(?<![A-Za-z0-9_-])(authorization["']?[ \t]{0,5}[:=][ \t]{0,5}["']?)(?:(bearer|basic|token|bot|digest|apikey)([ \t]{1,5}))?([^\s"',;\\]+)/gi;
const BARE_BEARER = /(?<![A-Za-z0-9_-])(bearer[ \t]{1,5})([A-Za-z0-9._~+/=-]{8,})/gi;

const hasDigit = (s: string): boolean => /[0-9]/.test(s);
const hasUpperAndLower = (s: string): boolean => /[A-Z]/.test(s) && /[a-z]/.test(s);
/** A credential, not a word: contains a digit, or is long and mixed-case. */
const looksLikeToken = (s: string): boolean => hasDigit(s) || (s.length >= 20 && hasUpperAndLower(s));

const redactAuthHeaders = pass(
  /authorization/i,
  AUTH_HEADER,
  (all, head: string, scheme: string | undefined, gap: string | undefined, value: string) => {
    if (isMarker(value)) return all;
    const s = scheme?.toLowerCase();
    if (!s && !looksLikeToken(value)) return all;
    const cls: SecretClass = s === "bearer" ? "bearer" : s === "basic" ? "basic_auth" : "authorization";
    return `${head}${scheme ? scheme + gap : ""}${marker(cls)}`;
  },
);
const bareBearer = (all: string, head: string, token: string): string =>
  looksLikeToken(token) ? `${head}${marker("bearer")}` : all;

// --- Provider key formats (prefix-anchored) ------------------------------------
/** A prefix-anchored key format; `accept` checks the whole match (here, not as a regex tail, to stay linear). */
const key = (cls: SecretClass, hint: Hint, re: RegExp, accept?: (match: string) => boolean): Replacer =>
  pass(hint, re, (m) => (accept && !accept(m) ? m : marker(cls)));

/** 0 a symbol, 1 a digit, 2 upper case, 3 lower case */
const charKind = (c: number): number =>
  c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0;

/** Letters and digits, or case switches in 30% of a body: random, not a camelCase name (`hf_TransformersConfig`). */
function randomish(body: string): boolean {
  let switches = 0;
  let prev = 0;
  for (let i = 0; i < body.length; i++) {
    const k = charKind(body.charCodeAt(i));
    if (k !== 0 && prev !== 0 && k !== prev) switches++;
    if (k !== 0) prev = k;
  }
  return (hasDigit(body) && /[A-Za-z]/.test(body)) || switches >= 0.3 * body.length;
}
/** A prefix that also starts names (`hf_hub_download`): a body shorter than the format's must look random. */
const randomUnder = (prefix: number, full: number) => (m: string): boolean => m.length - prefix >= full || randomish(m.slice(prefix));

// A truncated or other-format token is still a secret: bodies of any length past a few characters
// (docs/security.md, "Token prefixes and lengths", gives each prefix's reason).
const PREFIX_RULES: Replacer[] = [
  key("anthropic", "sk-ant-", /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{6,}/g),
  // "sk-learn-pipeline-2024" is a name: a key body is mixed case and digits, or one long alnum run
  key("openai", "sk-", /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/g, (m) => {
    const body = m.slice(3);
    if (hasDigit(body) && hasUpperAndLower(body)) return true;
    return body.split(/[_-]/).some((run) => run.length >= 20 && hasDigit(run) && /[A-Za-z]/.test(run));
  }),
  key("stripe", /[sr]k_(?:live|test)_/, /(?<![A-Za-z0-9_-])[sr]k_(?:live|test)_[A-Za-z0-9]{6,}/g),
  key("github", /gh[pousr]_/, /(?<![A-Za-z0-9_-])gh[pousr]_[A-Za-z0-9]{8,}/g),
  key("github", "github_pat_", /(?<![A-Za-z0-9_-])github_pat_[A-Za-z0-9_]{8,}/g),
  // xox + any letter: xoxa/b/c/d/e/o/p/r/s (bot, user, client, refresh …); Slack bodies start with digits
  key("slack", /xox[a-z]-|xapp-/, /(?<![A-Za-z0-9_-])(?:xox[a-z]|xapp)-[A-Za-z0-9-]{6,}/g, (m) => hasDigit(m.slice(5))),
  key(
    "gitlab",
    /gl(?:pat|ptt|dt|rt|ft|imt|cbt|soat|oas|agent)-/,
    /(?<![A-Za-z0-9_-])gl(?:pat|ptt|dt|rt|ft|imt|cbt|soat|oas|agent)-[A-Za-z0-9_-]{8,}/g,
  ),
  key("huggingface", "hf_", /(?<![A-Za-z0-9_-])hf_[A-Za-z0-9]{12,}/g, randomUnder(3, 34)),
  key("huggingface", "api_org_", /(?<![A-Za-z0-9_-])api_org_[A-Za-z0-9]{12,}/g, randomUnder(8, 34)),
  key("npm", "npm_", /(?<![A-Za-z0-9_-])npm_[A-Za-z0-9]{12,}/g, randomUnder(4, 36)),
  key("google", "AIza", /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{12,}/g),
  key("aws_access_key", /AKIA|ASIA/, /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{8,}/g),
  // hex or short bodies, as the providers document them (a bare hex run is kept, so the prefix must say it)
  key("token", "_v1_", /(?<![A-Za-z0-9_-])do[opr]_v1_[a-f0-9]{16,}/g),
  key("token", "rubygems_", /(?<![A-Za-z0-9_-])rubygems_[a-f0-9]{16,}/g),
  key("token", "pul-", /(?<![A-Za-z0-9_-])pul-[a-f0-9]{20,}/g),
  key("token", "sntr", /(?<![A-Za-z0-9_-])sntry[su]_[A-Za-z0-9+/=_-]{16,}/g),
  key("token", "SK", /(?<![A-Za-z0-9_-])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g),
  key("token", "-us", /(?<![A-Za-z0-9_-])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])/g),
  key("token", "GOCSPX-", /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{8,}/g),
  key("token", "PMAK-", /(?<![A-Za-z0-9_-])PMAK-[A-Za-z0-9-]{8,}/g),
  key("token", "AGE-SECRET-KEY-1", /AGE-SECRET-KEY-1[0-9A-Z]{8,}/g),
  key("token", "NRAK-", /(?<![A-Za-z0-9_-])NRAK-[A-Z0-9]{10,}/g),
  key("token", "LTAI", /(?<![A-Za-z0-9_-])LTAI[A-Za-z0-9]{16,24}(?![A-Za-z0-9])/g),
  key("token", ":AA", /(?<![A-Za-z0-9_:-])[0-9]{8,10}:AA[A-Za-z0-9_-]{20,}/g),
  key("token", "bot", /(?<=bot(?:[ _-]?token)?[ :=]{1,3}[0-9]{8,10}:)[A-Za-z0-9_-]{20,}/gi),
];

// Webhook URLs are credentials in their path: keep the host (to say what it was), drop the path.
const SLACK_WEBHOOK = /(hooks\.slack\.com\/)(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/g;
const DISCORD_WEBHOOK = /(discord(?:app)?\.com\/api\/webhooks\/)[0-9]{5,}\/[A-Za-z0-9_-]{20,}/g;

const webhookHost = (_all: string, host: string): string => `${host}${marker("slack_webhook")}`;

// --- key = value secrets ----------------------------------------------------------
// The key must END in a secret word (`GITHUB_TOKEN=…`, not `max_tokens: 4096`); the lookbehind
// makes a key run start only at its start.
const KEY_WORDS =
  "(?:api[_-]?key|apikey|secret(?:[_-]?key)?|token|passw(?:or)?d|pass(?:phrase)?|pwd|access[_-]?key|private[_-]?key|credentials?|auth)";
const KEY_VALUE = new RegExp(
  String.raw`(?<![A-Za-z0-9_.-])(["']?[A-Za-z0-9_.-]{0,40}?` +
    KEY_WORDS +
    String.raw`["']?[ \t]{0,5}[:=][ \t]{0,5})` +
    // double-quoted | single-quoted | bare; unbounded (a bound would leave a long secret's tail), a quote
    // left open (a cut value) runs to the line end
    String.raw`(?:"((?:[^"\\\r\n]|\\.)+)(?:"|(?=[\r\n]|$))|'([^'\r\n]+)(?:'|(?=[\r\n]|$))|([^\s"'\x60,;(){}\[\]<>]+))`,
  "gi",
);
const AWS_SECRET =
  /(?<![A-Za-z0-9_.-])(["']?(?:aws_?)?secret_?access_?key["']?[ \t]{0,5}[:=][ \t]{0,5}["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi;

/** Code literals and type names (syntax, not secrets). */
const LITERALS = new Set(["null", "true", "false", "undefined", "none", "nil", "string", "str", "number", "boolean", "bytes"]);

/** `req.body.password`, `process.env.DB_PASS`, `this.token`: a member access in code, not a literal. */
const MEMBER_ACCESS = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;

/** `pass` / `pwd` only as a whole word (`DB_PASS`, `dbPass`, `PGPASS`, not `compass`); longer words anywhere. */
function isSecretKeyName(head: string): boolean {
  const key = head.replace(/["'\s:=]+/g, "");
  const m = /(pass|pwd)$/i.exec(key);
  if (!m) return true;
  const before = key.slice(0, m.index);
  if (before === "" || /[_.-]$/.test(before)) return true;
  if (key === key.toUpperCase()) return true; // env-var style: PGPASS, DBPWD
  return /[a-z0-9]$/.test(before) && /^[A-Z]/.test(m[1]!); // camelCase: dbPass
}

/** Backslashes that end a bare value before a quote escape it (`KEY=v\\"}` in JSON): kept, they are syntax. */
const escapeTail = (value: string, next: string): string => (next === '"' || next === "'" ? (/\\+$/.exec(value)?.[0] ?? "") : "");

/** A digit or a symbol, or long and mixed-case: a credential, not a word. */
const looksLikeCredential = (v: string): boolean => /[^A-Za-z]/.test(v) || (v.length >= 8 && hasUpperAndLower(v));

const redactKeyValues: Replacer = (text) => {
  if (!/secret|token|pass|pwd|key|auth|credential/i.test(text)) return text;
  const out = text.replace(AWS_SECRET, (all, head: string, value: string) =>
    isMarker(value) ? all : `${head}${marker("aws_secret")}`,
  );
  return out.replace(
    KEY_VALUE,
    (all, head: string, dq: string | undefined, sq: string | undefined, bare: string | undefined, offset: number, whole: string) => {
      if (!isSecretKeyName(head)) return all;
      if (dq !== undefined) return isMarker(dq) ? all : `${head}"${marker("secret")}"`;
      if (sq !== undefined) return isMarker(sq) ? all : `${head}'${marker("secret")}'`;
      const value = bare ?? "";
      if (value.length < 4 || LITERALS.has(value.toLowerCase()) || isMarker(value)) return all;
      // `token = \\\"…`: the backslashes escape the quote of a value one JSON level down (redact.ts reads it)
      if (/^\\+$/.test(value)) return all;
      // `token = getToken()`: code calling a function, not a secret literal.
      if (whole.charAt(offset + all.length) === "(") return all;
      if (MEMBER_ACCESS.test(value) && !hasDigit(value)) return all;
      // `the secret: keep functions small`: a plain word followed by more words is prose
      if (!head.includes("=") && !looksLikeCredential(value) && /^[ \t]+\S/.test(whole.slice(offset + all.length, offset + all.length + 8))) {
        return all;
      }
      return `${head}${marker("secret")}${escapeTail(value, whole.charAt(offset + all.length))}`;
    },
  );
};

// --- command-line passwords ---------------------------------------------------------
// `--password X` (`=X` is a key=value above); not a value starting with `-` (a flag), `$` (a shell
// variable) or `\"` (a quoted value one JSON level down, read in the decoded view).
const CLI_FLAG =
  /(?<![A-Za-z0-9_-])(--?(?:[A-Za-z0-9]+-)*(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-?key|private-?key)[ \t]+)(?![-$]|\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/gi;
// mysql takes the password glued to -p (`-p db` names a database), sshpass after -p; within one command.
const MYSQL_P = /(?<![\w./-])((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlsh|mariadb|mariadb-dump)(?![\w-])[^\n;|&]{0,400}?[ \t]-p)(?!\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/g;
// `curl -u user:password` (the user is kept) and a netrc line `machine h login u password p`.
const CURL_USER = /(?<![\w./-])(curl(?![\w-])[^\n;|&]{0,400}?[ \t](?:-u|--user)[ \t]*["']?[^\s:"']{1,100}:)([^\s"']+)/g;
const NETRC = /(?<![\w-])(machine[ \t]+\S{1,200}[ \t]+(?:login[ \t]+\S{1,200}[ \t]+)?password[ \t]+)(\S+)/g;
const SSHPASS_P = /(?<![\w./-])(sshpass(?![\w-])[^\n;|&]{0,200}?[ \t]-p[ \t]*)(?!\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/g;

const password = (all: string, head: string, value: string, offset: number, whole: string): string =>
  isMarker(value.replace(/^["']/, "")) ? all : `${head}${marker("password")}${escapeTail(value, whole.charAt(offset + all.length))}`;

// --- JWT -------------------------------------------------------------------------
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g;

// --- long hex and base64 runs: kept or redacted by context, digest format and entropy (docs/security.md) ---
// one maximal run of the base64/base64url alphabet, classified in the callback
const LONG_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g;
const HEX_ONLY = /^(?:0[xX])?[0-9a-fA-F]{32,}$/;
const HEX_INSIDE = /(?<![A-Za-z0-9])(?:0[xX])?[0-9a-fA-F]{32,}(?![A-Za-z0-9])/g;

/** Expected number of distinct symbols in `n` uniform draws from an alphabet of `a`. */
const expectedDistinct = (n: number, a: number): number => a * (1 - Math.pow(1 - 1 / a, n));

/**
 * 40+ chars with digits and letters, case switches in 30% of them (random base64: 0.4-0.65), and
 * nearly as many distinct characters as a random draw (camelCase repeats letters: 25 distinct in
 * 56 chars against about 37 for random base64).
 */
function looksRandomBase64(run: string): boolean {
  if (run.length < 40) return false;
  let alnum = 0;
  let switches = 0;
  let prev = 0;
  const seen = new Set<number>();
  const kinds = [0, 0, 0, 0];
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    const k = charKind(c);
    seen.add(c);
    kinds[k] = 1;
    if (k === 0) continue;
    if (prev !== 0 && k !== prev) switches++;
    prev = k;
    alnum++;
  }
  const [symbols, digits, upper, lower] = kinds as [number, number, number, number];
  if (!digits || !(upper || lower) || alnum < 32 || switches / alnum < 0.3) return false;
  let symbolKinds = 0;
  if (symbols) for (const c of seen) if (charKind(c) === 0) symbolKinds++;
  const alphabet = 10 * digits + 26 * upper + 26 * lower + symbolKinds;
  return seen.size >= 0.8 * expectedDistinct(run.length, alphabet);
}

/** How far back a run's context is read on its line (bounded: the checks stay linear). */
const CONTEXT_WINDOW = 80;
/** The value of a key naming a credential (`"private_key_id": "…"`, `SIGNING_KEY=…`, `client_secret …`). */
const SECRET_CONTEXT =
  /(?:key|secret|token|passw|passphrase|pwd|auth|credential|signature|signing|private|salt|cookie|session|bearer|api)[A-Za-z0-9_.-]{0,40}["']?[ \t]{0,5}[:=]?[ \t]{0,5}["']?$/i;
/** A digest by what precedes it: `sha256:`, `h1:`, `integrity `, `"commit": "` … */
const DIGEST_CONTEXT =
  /(?:sha(?:1|224|256|384|512)?|md5|blake2[bs]?|h1|hash|digest|checksum|integrity|etag|commit|revision|oid|object)[A-Za-z0-9_.-]{0,20}["']?[ \t]{0,5}[:=]?[ \t]{0,5}["']?$/i;
const PATH_WORD = /(?:^|\/)[a-z]{4,}\//;
/** `objects/2d/<hex>`, `wheels/7d/66/<hex>`: a path with a word segment and no upper case (random base64 has some). */
const isLowerCasePath = (run: string): boolean => !/[A-Z]/.test(run) && PATH_WORD.test(run);
const HEXISH = /^(?:[0-9a-f+/=_-]+|[0-9A-F+/=_-]+)$/;
/** A Subresource-Integrity digest (lockfiles): the algorithm is part of the run. */
const SRI_PREFIX = /^(?:sha(?:1|256|384|512)|blake2b?)-/i;

function lineBefore(whole: string, offset: number): string {
  const from = Math.max(0, offset - CONTEXT_WINDOW);
  const window = whole.slice(from, offset);
  const nl = Math.max(window.lastIndexOf("\n"), window.lastIndexOf("\r"));
  return nl >= 0 ? window.slice(nl + 1) : window;
}

/** Base64 whose first 120 chars decode to printable text with spaces: data, not key material. */
function decodesToText(run: string): boolean {
  const head = run.replace(/[=]+$/, "").slice(0, 120);
  const bytes = Buffer.from(head.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (bytes.length < 16) return false;
  let spaces = 0;
  for (const b of bytes) {
    if (b === 32) spaces++;
    else if (b < 32 ? b !== 9 && b !== 10 && b !== 13 : b > 126) return false;
  }
  return spaces > 0;
}

const HEX_32 = /[0-9a-fA-F]{32}/;

/**
 * A run after a key naming a credential is redacted; otherwise hex is kept (an agent names commits
 * and images by it); random-looking base64 is redacted unless a digest by format or key, or text.
 */
const redactLongRuns: Replacer = (text) =>
  text.replace(LONG_RUN, (run: string, offset: number, whole: string) => {
    // the context is read only for runs that could be secrets (most long runs are paths and words)
    const secretContext = (): boolean => SECRET_CONTEXT.test(lineBefore(whole, offset));
    if (HEX_ONLY.test(run)) return secretContext() ? marker("hex") : run;
    // a-f in one case: hex joined by separators (`2d/<38 hex>`); a `/word/` segment: a path
    if (!HEXISH.test(run) && !isLowerCasePath(run) && looksRandomBase64(run)) {
      if (secretContext()) return marker("base64");
      if (SRI_PREFIX.test(run) || DIGEST_CONTEXT.test(lineBefore(whole, offset)) || decodesToText(run)) return run;
      return marker("base64");
    }
    if (!HEX_32.test(run)) return run;
    // a hex run inside a longer run (`SIGNING_KEY=<hex>`: `=` is in the base64 alphabet): by its own context
    return run.replace(HEX_INSIDE, (hex: string, at: number) => (SECRET_CONTEXT.test(lineBefore(whole, offset + at)) ? marker("hex") : hex));
  });

/**
 * Our passes in order: specific classes first so the marker says what was found, and the generic
 * key=value rule then sees a marker (and leaves it) instead of the raw key.
 */
export const OWN_PASSES: readonly Replacer[] = [
  redactPrivateKeys,
  pass(":/", URL_CREDENTIALS, urlPassword),
  pass("hooks.slack.com/", SLACK_WEBHOOK, webhookHost),
  pass("/api/webhooks/", DISCORD_WEBHOOK, webhookHost),
  redactAuthHeaders,
  pass(/bearer/i, BARE_BEARER, bareBearer),
  ...PREFIX_RULES,
  pass(/-(?:-|[a-z])/i, CLI_FLAG, password),
  pass(/mysql|mariadb/, MYSQL_P, password),
  pass("sshpass", SSHPASS_P, password),
  pass("curl", CURL_USER, password),
  pass("machine", NETRC, password),
  redactKeyValues,
  key("jwt", "eyJ", JWT),
  redactLongRuns,
];
