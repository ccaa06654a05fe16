/** Cuts BEFORE redaction: half a secret (`sk-proj-Hx`) is unrecognisable, so the partial run is dropped. */

/** Characters no credential format contains; a cut moved to one never splits a token. */
const TOKEN_BREAK = /[\s"'`,;:()[\]{}<>|]/;

/** A tail cut does not stop at `:`: what follows it can be a secret half (`https://user:` | `pass@host`). */
const TAIL_BREAK = /[\s"'`,;()[\]{}<>|]/;

/** Whether UTF-16 unit `i` of `text` is a token break (false outside the string). */
function isBreak(text: string, i: number, re: RegExp = TOKEN_BREAK): boolean {
  return i >= 0 && i < text.length && re.test(text.charAt(i));
}

/** The first `max` UTF-16 units of `text`, without a token run the cut falls in or half a surrogate pair. */
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
