/**
 * Session keys as the store can hold them, without two keys becoming one.
 *
 * A key is a host string and may be ill-formed UTF-16 (a lone surrogate). Files hold UTF-8,
 * where a lone surrogate can only become U+FFFD, so `x\uD800`, `x\uDC00` and `x\uFFFD` would
 * all be stored as `x\uFFFD` and share a directory. `canonicalSessionKey` is an injective map
 * to well-formed strings that leaves every ordinary key unchanged:
 * - a lone surrogate u becomes `\uFFFD{xxxx}` (its 4 hex digits),
 * - a U+FFFD already followed by `{` becomes `\uFFFD{fffd}` (so the escape is unambiguous),
 * - everything else is kept.
 * Decoding reads `\uFFFD{xxxx}` back as the unit xxxx and any other character as itself, so two
 * distinct keys never share an image. Keys without lone surrogates and without `\uFFFD{` (all
 * keys seen in practice) map to themselves: their directories do not move.
 */

const NEEDS_ESCAPE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\ufffd(?=\{)/g;

export function canonicalSessionKey(key: string): string {
  return key.replace(NEEDS_ESCAPE, (c) => `\ufffd{${c.charCodeAt(0).toString(16).padStart(4, "0")}}`);
}

/**
 * The host's session key when it is one: a string with something in it. Keys come from hosts
 * (OpenClaw core, plugins, pi), typed or not: a null, a number or an object is a host bug that
 * must cost the host nothing but a log line (issue 28), never a throw on its reply path.
 */
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
