/**
 * What a person sees of a string. Every captured string passes through here before it is
 * kept (`gist`) and again before it is rendered into a restore block (`toSingleLine`), so a
 * system event carries no text a reader cannot see.
 *
 * Removed by Unicode class, not by a list of examples:
 * - \p{Cf} format characters: zero-width space/joiners, bidi embeddings/overrides/isolates,
 *   word joiner, BOM, soft hyphen, interlinear annotation, Arabic letter mark, Mongolian
 *   vowel separator, the tag characters U+E0001 and U+E0020–E007F (which can spell hidden
 *   ASCII), …;
 * - \p{Default_Ignorable_Code_Point}: variation selectors (U+FE00–FE0F, U+E0100–E01EF),
 *   Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), combining grapheme joiner, Mongolian
 *   free variation selectors, Khmer inherent vowels, the reserved U+E0000–E0FFF block, …;
 * - \p{Cc} control characters other than the whitespace ones (those become a space);
 * - \p{Noncharacter_Code_Point} (U+FDD0–FDEF, U+xxFFFE/FFFF).
 * Lone surrogates (not Unicode text at all) become U+FFFD.
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

/** `text` without invisible code points (lone surrogates kept as they are: `withLoneSurrogatesReplaced` first where they matter): `isInvisible` over a whole string. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, "");
}

/** `text` with each lone surrogate (half a pair, not text at all) as U+FFFD. */
export function withLoneSurrogatesReplaced(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd");
}

/** `text` without invisible code points; lone surrogates become U+FFFD; visible whitespace is kept. */
export function visibleText(text: string): string {
  return text.replace(LONE_SURROGATE, "\ufffd").replace(INVISIBLE_ALL, "");
}
