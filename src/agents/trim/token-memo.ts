/**
 * pi's `estimateTokens` of a message (chars / 4) as smart trim asks it for what a decision
 * drops, without its one costly part on the request path: the JSON of each tool call's
 * arguments (a `write`'s content: KBs per call; 90% of the estimate's time on the bench's
 * 2,000 messages). That length is kept per message key, computed off the request path when
 * the message is indexed (or at the first decision that drops it), and reused while the
 * arguments keep their shape: the same call ids, names, keys, and string lengths with the
 * same first and last characters. Aged offload swaps a long argument for a marker line of
 * another length and first character, so an aged call is measured again. Everything else
 * (text and thinking lengths) is read each time: O(blocks), no text scanned. A call is
 * measured by messages/argument-chars.ts, whose length per arguments object the gauge and the
 * breakdown share; this memo by key is what survives pi handing each request fresh copies.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { strictCallChars } from "../messages/argument-chars.js";

type Block = { type?: unknown; text?: unknown; thinking?: unknown; name?: unknown; id?: unknown; arguments?: unknown };

/** Nodes of a call's arguments walked for its shape; a larger one is measured each time. */
const MAX_NODES = 512;
/** Heap per remembered message (its key's entry and the numbers). */
export const BYTES_PER_MEMO = 120;

const mix = (h: number, x: number): number => (Math.imul(h ^ x, 0x01000193) + 0x9e3779b9) | 0;

function strShape(h: number, s: string): number {
  h = mix(h, s.length);
  return s.length > 0 ? mix(mix(h, s.charCodeAt(0)), s.charCodeAt(s.length - 1)) : h;
}

/** nodes left to walk in the current shape (a large value is not memoized) */
let budget = 0;

/** The shape of a value (NaN: too large or not plain JSON data: not memoized). */
function shapeOf(v: unknown, h: number): number {
  if (--budget < 0) return NaN;
  if (typeof v === "string") return strShape(mix(h, 1), v);
  if (typeof v === "number") return mix(mix(h, 2), Number.isInteger(v) && Math.abs(v) < 2 ** 31 ? v : String(v).length);
  if (typeof v === "boolean") return mix(h, v ? 3 : 4);
  if (v === null || v === undefined) return mix(h, v === null ? 5 : 6);
  if (Array.isArray(v)) {
    h = mix(mix(h, 7), v.length);
    for (let i = 0; i < v.length; i++) h = shapeOf(v[i], h);
    return h;
  }
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    h = mix(h, 8);
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) h = shapeOf(o[k], strShape(h, k));
    return h;
  }
  return NaN;
}

interface Calls {
  /** the tool calls' shape */
  shape: number;
  /** chars pi counts for them: name + JSON of the arguments, summed */
  chars: number;
}

/** Shape of an assistant message's tool calls; NaN: none, or not memoizable. */
function callsShape(content: readonly Block[]): number {
  let h = 17;
  let any = false;
  budget = MAX_NODES;
  for (const b of content) {
    if (b?.type !== "toolCall") continue;
    any = true;
    if (typeof b.name !== "string" || typeof b.id !== "string") return NaN;
    h = shapeOf(b.arguments, strShape(strShape(h, b.id), b.name));
  }
  return any ? h : NaN;
}

export class TokenMemo {
  private readonly byKey = new Map<string, Calls>();

  get size(): number {
    return this.byKey.size;
  }

  /** Measures a message's tool calls now (off the request path) so a later decision reuses them. */
  remember(key: string, m: AgentMessage): void {
    const content = (m as { content?: unknown }).content;
    if (m?.role !== "assistant" || !Array.isArray(content)) return;
    const shape = callsShape(content as Block[]);
    if (Number.isNaN(shape)) return;
    const known = this.byKey.get(key);
    if (known?.shape === shape) return;
    const chars = callChars(content as Block[]);
    if (chars !== null) this.byKey.set(key, { shape, chars });
  }

  /** estimateTokens(m), the tool calls' JSON length reused while their shape holds. */
  tokensOf(key: string, m: AgentMessage): number {
    const content = (m as { content?: unknown }).content;
    if (m?.role !== "assistant" || !Array.isArray(content)) return estimateTokens(m);
    const known = this.byKey.get(key);
    if (!known) {
      this.remember(key, m);
      if (!this.byKey.has(key)) return estimateTokens(m);
      return this.tokensOf(key, m);
    }
    const shape = callsShape(content as Block[]);
    if (shape !== known.shape) {
      this.byKey.delete(key);
      return this.tokensOf(key, m);
    }
    let chars = known.chars;
    for (const b of content as Block[]) {
      if (b?.type === "text") {
        if (typeof b.text !== "string") return estimateTokens(m);
        chars += b.text.length;
      } else if (b?.type === "thinking") {
        if (typeof b.thinking !== "string") return estimateTokens(m);
        chars += b.thinking.length;
      }
    }
    return Math.ceil(chars / 4);
  }

  forget(keys: Iterable<string>): void {
    for (const k of keys) this.byKey.delete(k);
  }
}

/** pi's count for the tool call blocks (name + JSON of the arguments); null: not countable. */
function callChars(content: readonly Block[]): number | null {
  let chars = 0;
  for (const b of content) {
    if (b?.type !== "toolCall") continue;
    const n = strictCallChars(b);
    if (n === null) return null;
    chars += n;
  }
  return chars;
}
