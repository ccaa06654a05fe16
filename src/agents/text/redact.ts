/**
 * Secret redaction for every string the context manager captures or renders.
 *
 * `redactSecrets` replaces credentials with `[REDACTED:<class>]`. It runs on untrusted
 * text of any size on the agent's hot path, so every pattern is written to be linear:
 * - each unbounded run is anchored by a lookbehind that only lets it start at the
 *   beginning of a run of its own character class (no restart inside a run), and
 * - no unbounded run is followed by a condition that could force it to backtrack
 *   over the whole run from many start positions; checks that need the whole match
 *   ("looks random", "has a digit") are done in the replacement callback instead.
 *
 * The output is a fixpoint (`redactSecrets(redactSecrets(x)) === redactSecrets(x)`):
 * every pattern refuses to match the `[REDACTED:…]` marker, and the passes are
 * repeated until nothing changes (in practice the second pass is the check).
 *
 * Kept on purpose (not secrets, and an agent needs them to refer to things):
 * UUIDs, git SHAs (short and full), sha256/container digests, lockfile checksums and npm
 * `integrity` strings, base64 that decodes to text, file paths and identifiers. A hex or
 * base64 run is redacted by its context (the key before it names a credential) or, for
 * base64, by its entropy; not by its length alone (issue 28; docs/security.md).
 */

import { isMarker, MARKER_PREFIX, marker, type Replacer, type SecretClass } from "./redact-classes.js";
import { escapedViewsPass } from "./escaped-views.js";
import { redactLongRuns } from "./redact-long-runs.js";
import { secretRuleRanges } from "./secret-rules.js";

export { SECRET_CLASSES, type SecretClass } from "./redact-classes.js";

// --- PEM private keys --------------------------------------------------------
// Scanned with two bounded marker regexes and index arithmetic: the body between
// BEGIN and END can be any size and is never matched by a regex quantifier.
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
    // A truncated key (no END marker) is redacted to the end of the text: there is
    // no reliable end of its body, and leaking a key prefix is worse than losing prose.
    pos = end ? end.index + end[0].length : text.length;
    PEM_BEGIN.lastIndex = pos;
    if (!end) break;
  }
  return out + text.slice(pos);
};

// --- URL credentials ---------------------------------------------------------
// User and password runs stop at "/", so one scan never crosses into the next URL.
// One slash too: a path normalization (pi's tools, path.resolve) turns `https://` into `https:/`.
const URL_CREDENTIALS = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/?)([^\s/?#@:]*):([^\s/?#@]+)@/g;

const redactUrlCredentials: Replacer = (text) =>
  text.includes(":/")
    ? text.replace(URL_CREDENTIALS, (all, scheme: string, user: string, pass: string) =>
        isMarker(pass) ? all : `${scheme}${user}:${marker("url_password")}@`,
      )
    : text;

// --- Authorization headers and bare Bearer tokens -----------------------------
const AUTH_HEADER =
  /(?<![A-Za-z0-9_-])(authorization["']?[ \t]{0,5}[:=][ \t]{0,5}["']?)(?:(bearer|basic|token|bot|digest|apikey)([ \t]{1,5}))?([^\s"',;\\]+)/gi;
const BARE_BEARER = /(?<![A-Za-z0-9_-])(bearer[ \t]{1,5})([A-Za-z0-9._~+/=-]{8,})/gi;

const hasDigit = (s: string): boolean => /[0-9]/.test(s);
const hasUpperAndLower = (s: string): boolean => /[A-Z]/.test(s) && /[a-z]/.test(s);
/** A credential, not a word: contains a digit, or is long and mixed-case. */
const looksLikeToken = (s: string): boolean => hasDigit(s) || (s.length >= 20 && hasUpperAndLower(s));

const redactAuthorization: Replacer = (text) => {
  let out = text;
  if (/authorization/i.test(out)) {
    out = out.replace(
      AUTH_HEADER,
      (all, head: string, scheme: string | undefined, gap: string | undefined, value: string) => {
        if (isMarker(value)) return all;
        const s = scheme?.toLowerCase();
        if (!s && !looksLikeToken(value)) return all;
        const cls: SecretClass = s === "bearer" ? "bearer" : s === "basic" ? "basic_auth" : "authorization";
        return `${head}${scheme ? scheme + gap : ""}${marker(cls)}`;
      },
    );
  }
  if (/bearer/i.test(out)) {
    out = out.replace(BARE_BEARER, (all, head: string, token: string) =>
      looksLikeToken(token) ? `${head}${marker("bearer")}` : all,
    );
  }
  return out;
};

// --- Provider key formats (prefix-anchored) ------------------------------------
interface PrefixRule {
  cls: SecretClass;
  re: RegExp;
  /** cheap test that must hold for the rule to possibly match (a substring, or a pattern without lookbehind every match contains) */
  hint: string | RegExp;
  /** optional whole-match check (done here, not as a regex tail, to stay linear) */
  accept?: (match: string) => boolean;
}

/**
 * Case switches (upper / lower / digit) in at least 30% of a body, or letters and digits: a random
 * body, not a word or a camelCase name (`hf_TransformersConfig` switches case twice in 19 chars).
 */
function randomish(body: string): boolean {
  let switches = 0;
  let prev = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    const k = c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0;
    if (k !== 0 && prev !== 0 && k !== prev) switches++;
    if (k !== 0) prev = k;
  }
  return (hasDigit(body) && /[A-Za-z]/.test(body)) || switches >= 0.3 * body.length;
}
/** A prefix that also starts names (`hf_hub_download`, `npm_config_registry`): a short body must look random; one of the full length need not. */
const randomUnder = (prefix: number, full: number) => (m: string): boolean => m.length - prefix >= full || randomish(m.slice(prefix));

// Lengths: a token truncated, or in an older or newer format than today's, is still a secret. A
// prefix nothing else starts with takes any body from a few characters on and of any length; a
// prefix that also starts names needs a random-looking body when it is shorter than the current
// format (docs/security.md, "Token prefixes and lengths", lists each prefix and its reason).
const PREFIX_RULES: PrefixRule[] = [
  { cls: "anthropic", hint: "sk-ant-", re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{6,}/g },
  {
    cls: "openai",
    hint: "sk-",
    re: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/g,
    // "sk-learn-pipeline-2024" is a name, not a key: a key body is random (mixed case and
    // digits, or one long run of letters and digits), a name is short dash-separated words.
    accept: (m) => {
      const body = m.slice(3);
      if (hasDigit(body) && hasUpperAndLower(body)) return true;
      return body.split(/[_-]/).some((run) => run.length >= 20 && hasDigit(run) && /[A-Za-z]/.test(run));
    },
  },
  { cls: "stripe", hint: /[sr]k_(?:live|test)_/, re: /(?<![A-Za-z0-9_-])[sr]k_(?:live|test)_[A-Za-z0-9]{6,}/g },
  { cls: "github", hint: /gh[pousr]_/, re: /(?<![A-Za-z0-9_-])gh[pousr]_[A-Za-z0-9]{8,}/g },
  { cls: "github", hint: "github_pat_", re: /(?<![A-Za-z0-9_-])github_pat_[A-Za-z0-9_]{8,}/g },
  // xox + any letter: xoxa/b/c/d/e/o/p/r/s (bot, user, client, refresh …); Slack bodies start with digits
  { cls: "slack", hint: /xox[a-z]-|xapp-/, re: /(?<![A-Za-z0-9_-])(?:xox[a-z]|xapp)-[A-Za-z0-9-]{6,}/g, accept: (m) => hasDigit(m.slice(5)) },
  {
    cls: "gitlab",
    hint: /gl(?:pat|ptt|dt|rt|ft|imt|cbt|soat|oas|agent)-/,
    re: /(?<![A-Za-z0-9_-])gl(?:pat|ptt|dt|rt|ft|imt|cbt|soat|oas|agent)-[A-Za-z0-9_-]{8,}/g,
  },
  { cls: "huggingface", hint: "hf_", re: /(?<![A-Za-z0-9_-])hf_[A-Za-z0-9]{12,}/g, accept: randomUnder(3, 34) },
  { cls: "huggingface", hint: "api_org_", re: /(?<![A-Za-z0-9_-])api_org_[A-Za-z0-9]{12,}/g, accept: randomUnder(8, 34) },
  { cls: "npm", hint: "npm_", re: /(?<![A-Za-z0-9_-])npm_[A-Za-z0-9]{12,}/g, accept: randomUnder(4, 36) },
  { cls: "google", hint: "AIza", re: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{12,}/g },
  { cls: "aws_access_key", hint: /AKIA|ASIA/, re: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{8,}/g },
  // Prefixed formats whose body is hex or short (a bare hex run is kept, so the prefix must say it):
  // as the providers document them (and gitleaks' default rules list them).
  { cls: "token", hint: "_v1_", re: /(?<![A-Za-z0-9_-])do[opr]_v1_[a-f0-9]{16,}/g },
  { cls: "token", hint: "rubygems_", re: /(?<![A-Za-z0-9_-])rubygems_[a-f0-9]{16,}/g },
  { cls: "token", hint: "pul-", re: /(?<![A-Za-z0-9_-])pul-[a-f0-9]{20,}/g },
  { cls: "token", hint: "sntr", re: /(?<![A-Za-z0-9_-])sntry[su]_[A-Za-z0-9+/=_-]{16,}/g },
  { cls: "token", hint: "SK", re: /(?<![A-Za-z0-9_-])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/g },
  { cls: "token", hint: "-us", re: /(?<![A-Za-z0-9_-])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9])/g },
  { cls: "token", hint: "GOCSPX-", re: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{8,}/g },
  { cls: "token", hint: "PMAK-", re: /(?<![A-Za-z0-9_-])PMAK-[A-Za-z0-9-]{8,}/g },
  { cls: "token", hint: "AGE-SECRET-KEY-1", re: /AGE-SECRET-KEY-1[0-9A-Z]{8,}/g },
  { cls: "token", hint: "NRAK-", re: /(?<![A-Za-z0-9_-])NRAK-[A-Z0-9]{10,}/g },
  { cls: "token", hint: "LTAI", re: /(?<![A-Za-z0-9_-])LTAI[A-Za-z0-9]{16,24}(?![A-Za-z0-9])/g },
  { cls: "token", hint: ":AA", re: /(?<![A-Za-z0-9_:-])[0-9]{8,10}:AA[A-Za-z0-9_-]{20,}/g },
  { cls: "token", hint: "bot", re: /(?<=bot(?:[ _-]?token)?[ :=]{1,3}[0-9]{8,10}:)[A-Za-z0-9_-]{20,}/gi },
];

// Webhook URLs are credentials in their path: keep the host (to say what it was), drop the path.
const SLACK_WEBHOOK = /(hooks\.slack\.com\/)(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{8,}/g;
const DISCORD_WEBHOOK = /(discord(?:app)?\.com\/api\/webhooks\/)[0-9]{5,}\/[A-Za-z0-9_-]{20,}/g;

const redactWebhooks: Replacer = (text) => {
  let out = text;
  if (out.includes("hooks.slack.com/")) out = out.replace(SLACK_WEBHOOK, (_all, host: string) => `${host}${marker("slack_webhook")}`);
  if (out.includes("/api/webhooks/")) out = out.replace(DISCORD_WEBHOOK, (_all, host: string) => `${host}${marker("slack_webhook")}`);
  return out;
};

const redactProviderKeys: Replacer = (text) => {
  let out = text;
  for (const rule of PREFIX_RULES) {
    if (typeof rule.hint === "string" ? !out.includes(rule.hint) : !rule.hint.test(out)) continue;
    const accept = rule.accept;
    out = out.replace(rule.re, (m) => (accept && !accept(m) ? m : marker(rule.cls)));
  }
  return out;
};

// --- key = value secrets ----------------------------------------------------------
// The key must END in one of the secret words, so `max_tokens: 4096` or
// `tokens: 12` are left alone while `GITHUB_TOKEN=…` and `"apiKey": "…"` are not.
// Key chars are excluded from the lookbehind so a key run is tried from its start only.
const KEY_WORDS =
  "(?:api[_-]?key|apikey|secret(?:[_-]?key)?|token|passw(?:or)?d|pass(?:phrase)?|pwd|access[_-]?key|private[_-]?key|credentials?|auth)";
const KEY_VALUE = new RegExp(
  String.raw`(?<![A-Za-z0-9_.-])(["']?[A-Za-z0-9_.-]{0,40}?` +
    KEY_WORDS +
    String.raw`["']?[ \t]{0,5}[:=][ \t]{0,5})` +
    // double-quoted (with escapes) | single-quoted | bare value
    // Runs are unbounded on purpose (a bounded run would leave the tail of a long secret);
    // a quoted run stops at its closing quote or the line end, so scans cannot overlap.
    // A quote left open (the text was cut inside the value) runs to the line end: a cut value is still a secret.
    String.raw`(?:"((?:[^"\\\r\n]|\\.)+)(?:"|(?=[\r\n]|$))|'([^'\r\n]+)(?:'|(?=[\r\n]|$))|([^\s"'\x60,;(){}\[\]<>]+))`,
  "gi",
);
const AWS_SECRET =
  /(?<![A-Za-z0-9_.-])(["']?(?:aws_?)?secret_?access_?key["']?[ \t]{0,5}[:=][ \t]{0,5}["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi;

/** Code-literal values and type names that are not secrets (not language heuristics: these are syntax). */
const LITERALS = new Set(["null", "true", "false", "undefined", "none", "nil", "string", "str", "number", "boolean", "bytes"]);

/** `req.body.password`, `process.env.DB_PASS`, `this.token`: a member access in code, not a literal. */
const MEMBER_ACCESS = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+$/;

/**
 * A key ending in the short words `pass` / `pwd` names a password only as a whole word:
 * `pass`, `DB_PASS`, `db.pass`, `dbPass`, `MYSQL_PWD`, `PGPASS` (upper-case env name), not
 * `compass` or `bypass`. The longer words (password, passphrase, token…) count anywhere.
 */
function isSecretKeyName(head: string): boolean {
  const key = head.replace(/["'\s:=]+/g, "");
  const m = /(pass|pwd)$/i.exec(key);
  if (!m) return true;
  const before = key.slice(0, m.index);
  if (before === "" || /[_.-]$/.test(before)) return true;
  if (key === key.toUpperCase()) return true; // env-var style: PGPASS, DBPWD
  return /[a-z0-9]$/.test(before) && /^[A-Z]/.test(m[1]!); // camelCase: dbPass
}

/**
 * The backslashes that end a bare value right before a quote escape that quote (`KEY=v\\"}` inside a
 * JSON string): they are the string's syntax, kept so the text stays the JSON it was.
 */
const escapeTail = (value: string, next: string): string => (next === '"' || next === "'" ? (/\\+$/.exec(value)?.[0] ?? "") : "");

/** A bare value that reads like a credential rather than a word: has a digit or a symbol, or is long and mixed-case. */
const looksLikeCredential = (v: string): boolean => /[^A-Za-z]/.test(v) || (v.length >= 8 && hasUpperAndLower(v));

const redactKeyValues: Replacer = (text) => {
  if (!/secret|token|pass|pwd|key|auth|credential/i.test(text)) return text;
  let out = text.replace(AWS_SECRET, (all, head: string, value: string) =>
    isMarker(value) ? all : `${head}${marker("aws_secret")}`,
  );
  out = out.replace(
    KEY_VALUE,
    (all, head: string, dq: string | undefined, sq: string | undefined, bare: string | undefined, offset: number, whole: string) => {
      if (!isSecretKeyName(head)) return all;
      if (dq !== undefined) return isMarker(dq) ? all : `${head}"${marker("secret")}"`;
      if (sq !== undefined) return isMarker(sq) ? all : `${head}'${marker("secret")}'`;
      const value = bare ?? "";
      if (value.length < 4 || LITERALS.has(value.toLowerCase()) || isMarker(value)) return all;
      // `token = \\\"…`: the backslashes escape the quote of a value one JSON level down (escaped-views.ts reads it)
      if (/^\\+$/.test(value)) return all;
      // `token = getToken()`: code calling a function, not a secret literal.
      if (whole.charAt(offset + all.length) === "(") return all;
      if (MEMBER_ACCESS.test(value) && !hasDigit(value)) return all;
      // `the secret: keep functions small`: after `key:` a plain word followed by more words
      // on the same line is prose; a credential has digits, symbols or mixed case.
      if (!head.includes("=") && !looksLikeCredential(value) && /^[ \t]+\S/.test(whole.slice(offset + all.length, offset + all.length + 8))) {
        return all;
      }
      return `${head}${marker("secret")}${escapeTail(value, whole.charAt(offset + all.length))}`;
    },
  );
  return out;
};

// --- command-line passwords ---------------------------------------------------------
// `--password X` (space-separated; `--password=X` is a key=value above). A value starting with
// `-` is the next flag, one starting with `$` a shell variable (not the secret itself), one starting
// with `\"` a quoted value one JSON level down (read whole in the decoded view, escaped-views.ts).
const CLI_FLAG =
  /(?<![A-Za-z0-9_-])(--?(?:[A-Za-z0-9]+-)*(?:password|passwd|pass|pwd|passphrase|token|secret|api-?key|access-?key|private-?key)[ \t]+)(?![-$]|\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/gi;
// mysql/mariadb take the password glued to -p (`-p secret` prompts and names a database);
// sshpass takes it after -p. Scanned within one command (up to a newline, ;, | or &).
const MYSQL_P = /(?<![\w./-])((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlsh|mariadb|mariadb-dump)(?![\w-])[^\n;|&]{0,400}?[ \t]-p)(?!\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/g;
// `curl -u user:password` (the user is kept) and a netrc line `machine h login u password p`.
const CURL_USER = /(?<![\w./-])(curl(?![\w-])[^\n;|&]{0,400}?[ \t](?:-u|--user)[ \t]*["']?[^\s:"']{1,100}:)([^\s"']+)/g;
const NETRC = /(?<![\w-])(machine[ \t]+\S{1,200}[ \t]+(?:login[ \t]+\S{1,200}[ \t]+)?password[ \t]+)(\S+)/g;
const SSHPASS_P = /(?<![\w./-])(sshpass(?![\w-])[^\n;|&]{0,200}?[ \t]-p[ \t]*)(?!\\+["'])("[^"\r\n]*"|'[^'\r\n]*'|[^\s"']+)/g;

const redactCliPasswords: Replacer = (text) => {
  let out = text;
  const keep = (all: string, head: string, value: string, offset: number, whole: string): string =>
    isMarker(value.replace(/^["']/, "")) ? all : `${head}${marker("password")}${escapeTail(value, whole.charAt(offset + all.length))}`;
  if (/-(?:-|[a-z])/i.test(out)) out = out.replace(CLI_FLAG, keep);
  if (/mysql|mariadb/.test(out)) out = out.replace(MYSQL_P, keep);
  if (out.includes("sshpass")) out = out.replace(SSHPASS_P, keep);
  if (out.includes("curl")) out = out.replace(CURL_USER, keep);
  if (out.includes("machine")) out = out.replace(NETRC, keep);
  return out;
};

// --- JWT -------------------------------------------------------------------------
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/g;
const redactJwts: Replacer = (text) => (text.includes("eyJ") ? text.replace(JWT, marker("jwt")) : text);

// --- the maintained rule set (text/secret-rules.ts) -----------------------------------------
const redactByRuleSet: Replacer = (text) => {
  const ranges = secretRuleRanges(text);
  if (ranges.length === 0) return text;
  let out = "";
  let pos = 0;
  for (const [a, b] of ranges) {
    if (a < pos) continue;
    const found = text.slice(a, b);
    // a range over one of our markers: already redacted
    out += text.slice(pos, a) + (found.includes(MARKER_PREFIX) ? found : marker("secretlint"));
    pos = b;
  }
  return out + text.slice(pos);
};

// Order matters: specific classes first so the marker says what was found, and the
// generic key=value rule then sees a marker (and leaves it) instead of the raw key.
const RAW_PASSES: Replacer[] = [
  redactPrivateKeys,
  redactUrlCredentials,
  redactWebhooks,
  redactAuthorization,
  redactProviderKeys,
  redactCliPasswords,
  redactKeyValues,
  redactJwts,
  redactLongRuns,
  // last: our passes name what they found; the rule set catches what they do not know
  redactByRuleSet,
];
const OWN_RAW_PASSES = RAW_PASSES.slice(0, -1);

const redactEscapedViews = escapedViewsPass((view) => redactWhole(view, RAW_PASSES));
const redactEscapedViewsOwn = escapedViewsPass((view) => redactWhole(view, OWN_RAW_PASSES));

/**
 * The text as it is, then as it reads with its JSON escapes decoded (escaped-views.ts). Raw first:
 * in `"password": "p@ss \"word\""` the `\"` belongs to the value, which only the raw text shows
 * whole; the views then find what the escaping hid from the raw passes.
 */
function redactAll(text: string, passes: readonly Replacer[], views: Replacer): string {
  const raw = redactWhole(text, passes);
  const viewed = views(raw);
  return viewed === raw ? raw : redactWhole(viewed, passes);
}

const MAX_ROUNDS = 4;

/**
 * Replace every recognised secret in `text` with `[REDACTED:<class>]`. Linear time, idempotent.
 * Total: a single match of several MB (one 10 MB token) exhausts V8's regexp backtrack stack
 * (RangeError); such input is then redacted in chunks of CHUNK chars, cut at whitespace where
 * possible. Only a secret straddling a cut could be missed there, and every caller in this
 * package bounds its input long before that size (see docs/security.md).
 */
export function redactSecrets(text: string): string {
  if (typeof text !== "string" || text.length === 0) return typeof text === "string" ? text : "";
  const memo = text.length <= MEMO_MAX_CHARS;
  if (memo) {
    const hit = recent.get(text);
    if (hit !== undefined) return hit;
  }
  let out: string;
  try {
    out = redactAll(text, RAW_PASSES, redactEscapedViews);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    out = redactChunked(text);
  }
  if (memo) remember(text, out);
  return out;
}

/**
 * The same text is redacted several times as one message is captured (a gist window per field),
 * archived and stashed, and short texts (names, paths, gists, requests cut to a line) again at
 * every checkpoint and compaction summary: the latest results are kept (a pure function of the
 * text, so a hit is exactly what a new pass would give). Bounded by MEMO_BUDGET_CHARS, each entry
 * counted at least ENTRY_CHARS (so many short texts are bounded too), oldest out first.
 */
const MEMO_MAX_CHARS = 64 * 1024;
const MEMO_BUDGET_CHARS = 4 * 1024 * 1024;
const ENTRY_CHARS = 128;
const recent = new Map<string, string>();
let recentChars = 0;
const weight = (text: string): number => Math.max(ENTRY_CHARS, text.length);
function remember(text: string, out: string): void {
  recent.set(text, out);
  recentChars += weight(text);
  while (recentChars > MEMO_BUDGET_CHARS) {
    const oldest = recent.keys().next().value as string;
    recent.delete(oldest);
    recentChars -= weight(oldest);
  }
}

const CHUNK = 256 * 1024;
/** How far back from a chunk's end a whitespace cut is looked for. */
const CUT_WINDOW = 4096;

function redactChunked(text: string): string {
  let out = "";
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const ws = text.slice(end - CUT_WINDOW, end).search(/\s[^\s]*$/);
      if (ws >= 0) end = end - CUT_WINDOW + ws + 1;
      // never split a surrogate pair
      const c = text.charCodeAt(end - 1);
      if (c >= 0xd800 && c <= 0xdbff) end -= 1;
    }
    out += redactAll(text.slice(start, end), RAW_PASSES, redactEscapedViews);
    start = end;
  }
  return out;
}

/** `redactSecrets` without its memo of recent texts: for measuring its cost (bench/redaction-corpus.ts). */
export function redactSecretsUncached(text: string): string {
  return redactAll(text, RAW_PASSES, redactEscapedViews);
}

/** Our passes alone, without the rule set: for the measurement that justifies it (bench/redaction-corpus.ts). */
export function redactOwnRulesOnly(text: string): string {
  return redactAll(text, OWN_RAW_PASSES, redactEscapedViewsOwn);
}

function redactWhole(text: string, passes: readonly Replacer[]): string {
  let current = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let next = current;
    for (const pass of passes) next = pass(next);
    if (next === current) return current;
    current = next;
  }
  return current;
}
