/**
 * Session keys as the store can hold them. UTF-8 turns a lone surrogate into U+FFFD, so `x\uD800`,
 * `x\uDC00` and `x\uFFFD` would share a directory: `canonicalSessionKey` is injective onto
 * well-formed strings (a lone surrogate becomes `\uFFFD{xxxx}`, a U+FFFD before `{` becomes
 * `\uFFFD{fffd}`) and leaves every ordinary key as it is.
 */

const NEEDS_ESCAPE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd(?=\{)/g;

export function canonicalSessionKey(key: string): string {
  return key.replace(NEEDS_ESCAPE, (c) => `\ufffd{${c.charCodeAt(0).toString(16).padStart(4, "0")}}`);
}

/** The host's session key when it is a non-blank string (anything else costs the host a log line, not a throw). */
export function hostSessionKey(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** What a key that is not one is, for the log line ("null", "undefined", "a number", "an object", "an empty string"). */
export function describeBadKey(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return "an empty string";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
