/**
 * What a person sees of a string: invisible code points removed by Unicode class (format, default
 * ignorable, control other than whitespace, noncharacter); lone surrogates become U+FFFD.
 */

const INVISIBLE_CLASSES = String.raw`\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cc}\p{Noncharacter_Code_Point}`;
/** Whitespace a reader sees as a gap (includes the C0/C1 line and tab controls). */
const VISIBLE_SPACE = String.raw`\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;

/** One invisible code point that is not visible whitespace. */
const INVISIBLE_ONE = new RegExp(`^(?![${VISIBLE_SPACE}])[${INVISIBLE_CLASSES}]$`, "u");
const INVISIBLE_ALL = new RegExp(`(?![${VISIBLE_SPACE}])[${INVISIBLE_CLASSES}]`, "gu");
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** True for one code point (a string of one or two UTF-16 units) that renders as nothing. */
export function isInvisible(ch: string): boolean {
  return INVISIBLE_ONE.test(ch);
}

/** `text` without invisible code points (lone surrogates kept: replace them first where they matter). */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, "");
}

/**
 * The string as UTF-8 files can hold it: lone UTF-16 surrogates (not valid Unicode) become U+FFFD.
 * Applied wherever a string is stored or compared with a stored one, session keys included.
 */
export function wellFormed(s: string): string {
  // the engine's scan (Node 20+): the lookbehind regex was a tenth of an emission
  const w = s as string & { isWellFormed?: () => boolean };
  if (typeof w.isWellFormed === "function" && w.isWellFormed()) return s;
  return s.replace(LONE_SURROGATE, "\uFFFD");
}

/** `text` without invisible code points; lone surrogates become U+FFFD; visible whitespace is kept. */
export function visibleText(text: string): string {
  return wellFormed(text).replace(INVISIBLE_ALL, "");
}
