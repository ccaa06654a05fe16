/**
 * Long hex and base64 runs (one of redact.ts's passes): kept or redacted by their context, known
 * digest formats and entropy, not by length alone (docs/security.md).
 */
import { marker, type Replacer } from "./redact-classes.js";

// --- Long hex / base64 runs ---------------------------------------------------------
// One maximal run of the base64/base64url alphabet, classified in the callback.
const LONG_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{32,}/g;
const HEX_ONLY = /^(?:0[xX])?[0-9a-fA-F]{32,}$/;
const HEX_INSIDE = /(?<![A-Za-z0-9])(?:0[xX])?[0-9a-fA-F]{32,}(?![A-Za-z0-9])/g;

const charKind = (c: number): number =>
  c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0;

/** Expected number of distinct symbols in `n` uniform draws from an alphabet of `a`. */
const expectedDistinct = (n: number, a: number): number => a * (1 - Math.pow(1 - 1 / a, n));

/**
 * Random-looking: 40+ chars with digits and letters, and
 * - frequent switches between upper / lower / digit (about 0.4-0.65 per char for random
 *   base64 or base36, near 0 for lower-case identifiers and paths; separators ignored), and
 * - nearly as many distinct characters as a random draw from the alphabet it uses
 *   (camelCase identifiers switch case often but repeat letters a lot: 25 distinct in
 *   56 chars against about 37 for random base64).
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

/** What precedes a run on its line, at most this many chars back (bounded: the context checks stay linear). */
const CONTEXT_WINDOW = 80;
/**
 * The run is the value of a key that names a credential (`"private_key_id": "…"`, `SIGNING_KEY=…`,
 * `auth_token: …`, `client_secret …`): the key word anywhere in the key name, then `:`/`=` or a space.
 */
const SECRET_CONTEXT =
  /(?:key|secret|token|passw|passphrase|pwd|auth|credential|signature|signing|private|salt|cookie|session|bearer|api)[A-Za-z0-9_.-]{0,40}["']?[ \t]{0,5}[:=]?[ \t]{0,5}["']?$/i;
/** The run is a digest by what precedes it: `sha256:`, `h1:`, `integrity `, `"commit": "`, `checksum = "` … */
const DIGEST_CONTEXT =
  /(?:sha(?:1|224|256|384|512)?|md5|blake2[bs]?|h1|hash|digest|checksum|integrity|etag|commit|revision|oid|object)[A-Za-z0-9_.-]{0,20}["']?[ \t]{0,5}[:=]?[ \t]{0,5}["']?$/i;
/** A Subresource-Integrity digest (npm, yarn and pnpm lockfiles): the algorithm is part of the run. */
const PATH_WORD = /(?:^|\/)[a-z]{4,}\//;
/** `objects/2d/<hex>`, `wheels/7d/66/<hex>`: a path with a word segment and no upper case (random base64 has some). */
const isLowerCasePath = (run: string): boolean => !/[A-Z]/.test(run) && PATH_WORD.test(run);
const HEXISH = /^(?:[0-9a-f+/=_-]+|[0-9A-F+/=_-]+)$/;
const SRI_PREFIX = /^(?:sha(?:1|256|384|512)|blake2b?)-/i;

function lineBefore(whole: string, offset: number): string {
  const from = Math.max(0, offset - CONTEXT_WINDOW);
  const window = whole.slice(from, offset);
  const nl = Math.max(window.lastIndexOf("\n"), window.lastIndexOf("\r"));
  return nl >= 0 ? window.slice(nl + 1) : window;
}

/**
 * Base64 that decodes to text with spaces is data (test fixtures, encoded messages), not key
 * material: random bytes are almost never all printable. Checked on the first 120 chars.
 */
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

/**
 * Long hex and base64 runs, by context, known formats and entropy rather than by length alone:
 * - the value of a key that names a credential is redacted (hex or base64, whatever its length
 *   past 32);
 * - otherwise a hex run is KEPT: full git SHAs, sha256 digests, container digests, lockfile
 *   checksums are what an agent needs to name a commit or an image, and a bare hex run cannot be
 *   told from them;
 * - a random-looking base64 run is redacted, unless it is a digest by format (`sha512-…`
 *   integrity, `h1:…`) or by the key before it (`"hash":`, `checksum =`), or decodes to text.
 */
const HEX_32 = /[0-9a-fA-F]{32}/;

export const redactLongRuns: Replacer = (text) =>
  text.replace(LONG_RUN, (run: string, offset: number, whole: string) => {
    // the context is read only for runs that could be secrets (most long runs are paths and words)
    const secretContext = (): boolean => SECRET_CONTEXT.test(lineBefore(whole, offset));
    if (HEX_ONLY.test(run)) return secretContext() ? marker("hex") : run;
    // letters only from a-f (one case): hex joined by separators (`2d/<38 hex>`), not base64 (random
    // base64 of 40+ chars all but never keeps to six letters); a `/word/` segment: a path, not base64
    if (!HEXISH.test(run) && !isLowerCasePath(run) && looksRandomBase64(run)) {
      if (secretContext()) return marker("base64");
      if (SRI_PREFIX.test(run) || DIGEST_CONTEXT.test(lineBefore(whole, offset)) || decodesToText(run)) return run;
      return marker("base64");
    }
    if (!HEX_32.test(run)) return run;
    // a hex run inside a longer run (`SIGNING_KEY=<hex>`: `=` is in the base64 alphabet): by its own context
    return run.replace(HEX_INSIDE, (hex: string, at: number) => (SECRET_CONTEXT.test(lineBefore(whole, offset + at)) ? marker("hex") : hex));
  });
