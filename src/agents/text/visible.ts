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
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** True for one code point (a string of one or two UTF-16 units) that renders as nothing. */
export function isInvisible(ch: string): boolean {
  return INVISIBLE_ONE.test(ch);
}

/** `text` without invisible code points (lone surrogates kept: replace them first where they matter). */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, "");
}

/** `text` with each lone surrogate as U+FFFD. */
export function withLoneSurrogatesReplaced(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd");
}

/** `text` without invisible code points; lone surrogates become U+FFFD; visible whitespace is kept. */
export function visibleText(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd").replace(INVISIBLE_ALL, "");
}
