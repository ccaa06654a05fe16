/**
 * A tool call's size as pi's `estimateTokens` counts it: its name plus the JSON length of its
 * arguments. The one place that length is computed: the gauge's estimate (message-tokens.ts),
 * smart trim's (trim/token-memo.ts) and the context breakdown (breakdown/) all read it here, so
 * an arguments object is stringified once for all three. Kept per arguments object: a call's
 * arguments are not changed once the call is in the history (a streamed call gets a new object
 * per delta; aged offload swaps in a new block with new arguments). No SDK import here: the
 * breakdown is loaded by the CLI too.
 */
const argumentChars = new WeakMap<object, number>();

/** A tool call block, as read from a message's content. */
export type CallBlock = { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown };

/** `JSON.stringify(args).length`; throws where JSON.stringify throws or gives no text. */
export function argumentsJsonLength(args: object): number {
  let n = argumentChars.get(args);
  if (n === undefined) {
    n = JSON.stringify(args).length;
    argumentChars.set(args, n);
  }
  return n;
}

/** Name + JSON of the arguments, exactly as pi counts a call; null where pi's count would throw (no name, arguments with no JSON). */
export function strictCallChars(b: CallBlock): number | null {
  if (typeof b.name !== "string") return null;
  const args = b.arguments;
  try {
    if (args !== null && typeof args === "object") return b.name.length + argumentsJsonLength(args);
    const json = JSON.stringify(args);
    return typeof json === "string" ? b.name.length + json.length : null;
  } catch {
    return null;
  }
}

/** The breakdown's count of a call: as pi's, never throwing (no arguments count as `{}`, unstringifiable ones as 0). */
export function toolCallChars(b: CallBlock): number {
  let args = 0;
  try {
    const value = b.arguments ?? {};
    args = typeof value === "object" && value !== null ? argumentsJsonLength(value) : (JSON.stringify(value)?.length ?? 0);
  } catch {
    args = 0; // a cyclic or BigInt argument: pi would have failed on it first
  }
  return (typeof b.name === "string" ? b.name.length : 0) + args;
}

/** Containers argsShape looks into, and how many of their entries. */
const SHAPE_DEPTH = 3;
const SHAPE_ENTRIES = 64;

/**
 * A cheap fingerprint of a call (its name's length; its arguments' keys, string lengths,
 * numbers and array lengths, three levels deep; no JSON, no text read), so a call whose
 * arguments were rewritten under the same id is measured again rather than taken as known
 * (the breakdown's call-sizes.ts and smart trim's token-memo.ts both check it).
 * Blind to an edit that keeps every length (its JSON length can still differ by escapes).
 */
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
