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

import { MARKER_PREFIX, marker, type Replacer } from "./redact-classes.js";
import { escapedViewsPass } from "./escaped-views.js";
import { redactLongRuns } from "./redact-long-runs.js";
import { secretRuleRanges } from "./secret-rules.js";
import {
  redactAuthorization,
  redactCliPasswords,
  redactJwts,
  redactKeyValues,
  redactPrivateKeys,
  redactProviderKeys,
  redactUrlCredentials,
  redactWebhooks,
} from "./redact-passes.js";

export { SECRET_CLASSES, type SecretClass } from "./redact-classes.js";

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
