/**
 * Cutting untrusted text to a bound BEFORE it is redacted. A secret cut in half is no longer
 * recognisable (`sk-proj-Hx` is not a key, `https://user:pa` has no `@`, a JWT with one dot is
 * not a JWT), so a plain slice would leak the piece left of the cut. These cuts drop the
 * partial run instead: back to the last character that cannot be part of a token (whitespace,
 * quotes, brackets, `,;:|`), or forward from the first one for a tail.
 */

/** Characters no credential format contains; a cut moved to one never splits a token. */
const TOKEN_BREAK = /[\s"'`,;:()[\]{}<>|]/;

/**
 * For a tail cut, `:` is not a break: what follows a colon can be the secret half of a token
 * (`https://user:` | `pass@host`, `user:` | `pass` of basic auth), and without its head the rest
 * is no longer recognisable. A head cut may stop at a colon: what precedes it is a name.
 */
const TAIL_BREAK = /[\s"'`,;()[\]{}<>|]/;

/** Whether UTF-16 unit `i` of `text` is a token break (false outside the string). */
function isBreak(text: string, i: number, re: RegExp = TOKEN_BREAK): boolean {
  return i >= 0 && i < text.length && re.test(text.charAt(i));
}

/**
 * The first `max` UTF-16 units of `text`; when the cut falls inside a run of token characters,
 * that run is dropped (the result then ends at a token break). Never splits a surrogate pair.
 */
export function cutHead(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, Math.floor(max));
  if (!isBreak(text, end) && !isBreak(text, end - 1)) {
    while (end > 0 && !isBreak(text, end - 1)) end--;
  }
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end);
}

/** The last `max` UTF-16 units of `text`, dropping a partial token run at the start. */
export function cutTail(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - Math.max(0, Math.floor(max));
  if (!isBreak(text, start, TAIL_BREAK) && !isBreak(text, start - 1, TAIL_BREAK)) {
    while (start < text.length && !isBreak(text, start, TAIL_BREAK)) start++;
  }
  const c = text.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start++;
  return text.slice(start);
}
