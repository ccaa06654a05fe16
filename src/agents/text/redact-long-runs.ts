/** Long hex and base64 runs, kept or redacted by context, digest format and entropy (docs/security.md). */
import { marker, type Replacer } from "./redact-classes.js";

// one maximal run of the base64/base64url alphabet, classified in the callback
const LONG_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g;
const HEX_ONLY = /^(?:0[xX])?[0-9a-fA-F]{32,}$/;
const HEX_INSIDE = /(?<![A-Za-z0-9])(?:0[xX])?[0-9a-fA-F]{32,}(?![A-Za-z0-9])/g;

const charKind = (c: number): number =>
  c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0;

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
export const redactLongRuns: Replacer = (text) =>
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
