/** The pattern passes of redactSecrets (redact.ts), one per kind of credential. */

import { isMarker, marker, type Replacer, type SecretClass } from "./redact-classes.js";

// --- PEM private keys --------------------------------------------------------
// The body between BEGIN and END is found by index, never by a regex quantifier.
const PEM_BEGIN = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

export const redactPrivateKeys: Replacer = (text) => {
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

export const redactUrlCredentials: Replacer = (text) =>
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

export const redactAuthorization: Replacer = (text) => {
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
  /** what every match contains: a text without it is not scanned */
  hint: string | RegExp;
  /** whole-match check (here, not as a regex tail, to stay linear) */
  accept?: (match: string) => boolean;
}

/** Letters and digits, or case switches in 30% of a body: random, not a camelCase name (`hf_TransformersConfig`). */
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
/** A prefix that also starts names (`hf_hub_download`): a body shorter than the format's must look random. */
const randomUnder = (prefix: number, full: number) => (m: string): boolean => m.length - prefix >= full || randomish(m.slice(prefix));

// A truncated or other-format token is still a secret: bodies of any length past a few characters
// (docs/security.md, "Token prefixes and lengths", gives each prefix's reason).
const PREFIX_RULES: PrefixRule[] = [
  { cls: "anthropic", hint: "sk-ant-", re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{6,}/g },
  {
    cls: "openai",
    hint: "sk-",
    re: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{16,}/g,
    // "sk-learn-pipeline-2024" is a name: a key body is mixed case and digits, or one long alnum run
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
  // hex or short bodies, as the providers document them (a bare hex run is kept, so the prefix must say it)
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

export const redactWebhooks: Replacer = (text) => {
  let out = text;
  if (out.includes("hooks.slack.com/")) out = out.replace(SLACK_WEBHOOK, (_all, host: string) => `${host}${marker("slack_webhook")}`);
  if (out.includes("/api/webhooks/")) out = out.replace(DISCORD_WEBHOOK, (_all, host: string) => `${host}${marker("slack_webhook")}`);
  return out;
};

export const redactProviderKeys: Replacer = (text) => {
  let out = text;
  for (const rule of PREFIX_RULES) {
    if (typeof rule.hint === "string" ? !out.includes(rule.hint) : !rule.hint.test(out)) continue;
    const accept = rule.accept;
    out = out.replace(rule.re, (m) => (accept && !accept(m) ? m : marker(rule.cls)));
  }
  return out;
};

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

export const redactKeyValues: Replacer = (text) => {
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
      // `the secret: keep functions small`: a plain word followed by more words is prose
      if (!head.includes("=") && !looksLikeCredential(value) && /^[ \t]+\S/.test(whole.slice(offset + all.length, offset + all.length + 8))) {
        return all;
      }
      return `${head}${marker("secret")}${escapeTail(value, whole.charAt(offset + all.length))}`;
    },
  );
  return out;
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

export const redactCliPasswords: Replacer = (text) => {
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
export const redactJwts: Replacer = (text) => (text.includes("eyJ") ? text.replace(JWT, marker("jwt")) : text);
