/**
 * Credentials in every captured or rendered string become `[REDACTED:<class>]`. Input of any size: every
 * pattern is linear (a run starts only at its run's start; whole-match checks in the callback), and the
 * output a fixpoint (no pattern matches a marker). docs/security.md says what is kept on purpose.
 */

import { escapedViewsPass } from "./escaped-views.js";
import { secretRuleRanges } from "./secret-rules.js";
import * as own from "./redact-passes.js";
import { MARKER_PREFIX, marker, type Replacer } from "./redact-passes.js";

// --- the maintained rule set (text/secret-rules.ts) -----------------------------------------
const redactByRuleSet: Replacer = (text) => {
  let out = "";
  let pos = 0;
  // sorted, merged, never empty: no range found leaves pos at 0
  for (const [a, b] of secretRuleRanges(text)) {
    const found = text.slice(a, b);
    // a range over one of our markers: already redacted
    out += text.slice(pos, a) + (found.includes(MARKER_PREFIX) ? found : marker("secretlint"));
    pos = b;
  }
  return pos === 0 ? text : out + text.slice(pos);
};

// Order matters: specific classes first so the marker says what was found, and the
// generic key=value rule then sees a marker (and leaves it) instead of the raw key.
const RAW_PASSES: Replacer[] = [
  own.redactPrivateKeys,
  own.redactUrlCredentials,
  own.redactWebhooks,
  own.redactAuthorization,
  own.redactProviderKeys,
  own.redactCliPasswords,
  own.redactKeyValues,
  own.redactJwts,
  own.redactLongRuns,
  // last: our passes name what they found; the rule set catches what they do not know
  redactByRuleSet,
];
const OWN_RAW_PASSES = RAW_PASSES.slice(0, -1);

const redactEscapedViews = escapedViewsPass((view) => redactWhole(view, RAW_PASSES));
const redactEscapedViewsOwn = escapedViewsPass((view) => redactWhole(view, OWN_RAW_PASSES));

/** Raw first (only it shows `"p@ss \"word\""` whole), then the decoded JSON views find what escaping hid. */
function redactAll(text: string, passes: readonly Replacer[], views: Replacer): string {
  const raw = redactWhole(text, passes);
  const viewed = views(raw);
  return viewed === raw ? raw : redactWhole(viewed, passes);
}

const MAX_ROUNDS = 4;

/** Every recognised secret replaced by its marker; a match of MBs (RangeError in V8) is redacted in chunks. */
export function redactSecrets(text: string): string {
  if (typeof text !== "string") return "";
  const memo = text.length <= MEMO_MAX_CHARS;
  const hit = memo ? recent.get(text) : undefined;
  if (hit !== undefined || text.length === 0) return hit ?? text;
  let out: string;
  try {
    out = redactSecretsUncached(text);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    out = redactChunked(text);
  }
  if (memo) remember(text, out);
  return out;
}

/** One text is redacted several times per turn: recent results kept (60 -> 31 ms a turn at 100 keys). */
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
const CUT_WINDOW = 4096;

function redactChunked(text: string): string {
  let out = "";
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const ws = text.slice(end - CUT_WINDOW, end).search(/\s[^\s]*$/);
      if (ws >= 0) end = end - CUT_WINDOW + ws + 1;
      const c = text.charCodeAt(end - 1);
      if (c >= 0xd800 && c <= 0xdbff) end -= 1;
    }
    out += redactSecretsUncached(text.slice(start, end));
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
