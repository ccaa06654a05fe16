/**
 * A tool call's size as pi's `estimateTokens` counts it (name + JSON length of the arguments), the
 * one place it is computed; kept per arguments object (they do not change once in the history).
 */
const argumentChars = new WeakMap<object, number>();

export type CallBlock = { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown };

/** Exactly as pi counts a call; null where pi's count would throw (no name, arguments with no JSON). */
export function strictCallChars(b: CallBlock): number | null {
  if (typeof b.name !== "string") return null;
  const args = b.arguments;
  try {
    if (args !== null && typeof args === "object") {
      let n = argumentChars.get(args);
      if (n === undefined) argumentChars.set(args, (n = JSON.stringify(args).length));
      return b.name.length + n;
    }
    const json = JSON.stringify(args);
    return typeof json === "string" ? b.name.length + json.length : null;
  } catch {
    return null;
  }
}

/** The breakdown's count of a call: as pi's, never throwing (no arguments count as `{}`, unstringifiable ones as 0). */
export function toolCallChars(b: CallBlock): number {
  const name = typeof b.name === "string" ? b.name : "";
  return strictCallChars({ name, arguments: b.arguments ?? {} }) ?? name.length;
}

/** Containers argsShape looks into, and how many of their entries. */
const SHAPE_DEPTH = 3;
const SHAPE_ENTRIES = 64;

/** A cheap fingerprint of a call (lengths, keys, numbers; no JSON): a call rewritten under its id is measured again. */
export function argsShape(b: CallBlock): number {
  return (Math.imul(typeof b.name === "string" ? b.name.length : 0, 31) + shapeOf(b.arguments, 0)) | 0;
}

function shapeOf(v: unknown, depth: number): number {
  if (typeof v === "string") return v.length * 8 + 1;
  if (typeof v === "number") return (v * 1000) | 0;
  if (v === null || typeof v !== "object") return v === true ? 3 : v === false ? 4 : 5;
  if (depth >= SHAPE_DEPTH) return 6;
  let h: number;
  if (Array.isArray(v)) {
    h = 7 + v.length;
    for (let i = 0; i < v.length && i < SHAPE_ENTRIES; i++) h = (Math.imul(h, 31) + shapeOf(v[i], depth + 1)) | 0;
  } else {
    h = 11;
    let n = 0;
    for (const k in v) {
      if (n++ >= SHAPE_ENTRIES) break;
      h = (Math.imul(h, 31) + k.length * 17 + shapeOf((v as Record<string, unknown>)[k], depth + 1)) | 0;
    }
  }
  return h;
}
