const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The string as UTF-8 files can hold it: lone UTF-16 surrogates (not valid Unicode) become U+FFFD.
 * Applied wherever a string is stored or compared with a stored one, session keys included.
 */
export function wellFormed(s: string): string {
  // the engine's scan (Node 20+): the lookbehind regex was a tenth of an emission
  const w = s as string & { isWellFormed?: () => boolean };
  if (typeof w.isWellFormed === "function" && w.isWellFormed()) return s;
  return s.replace(LONE_SURROGATE_RE, "\uFFFD");
}
