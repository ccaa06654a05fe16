/**
 * When a change to earlier history pays under the provider's cache rules (docs/design.md#aging-under-a-prompt-cache).
 * Under Anthropic's breakpoint rules a change before the previous request's breakpoint makes the
 * request write everything from the latest entry the provider can still reuse before the change
 * (an earlier request's end within the lookback and the TTL, else the system prompt's) to its
 * end at 1.25x instead of reading it at 0.1x. So what ages for the first time is swapped in:
 *   - when the cache is cold anyway: no request within the TTL, or the prompt was just rewritten
 *     (a compaction, a restore block in the system prompt, a restart of this process): "cold";
 *   - when the reads it saves over the expected remaining requests exceed what it rewrites,
 *     priced by swap-price.ts from the entry the provider would reuse: "lookback" when that
 *     entry is an earlier request's end, "pays" when it is only the system prompt's;
 *   - otherwise it is held ("held") and offered again, with whatever aged since, next request:
 *     one rewrite then carries the batch.
 * Under automatic prefix caching (openai) and without a cache, aging runs as it always did.
 * Per request O(new messages): the ends are counts, the lookback walk is bounded by the lookback.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AgingGate, FreshAging } from "../artifacts/aged-offload.js";
import { messageKey } from "../messages/message-key.js";
import { messageTokens } from "../messages/message-tokens.js";
import type { CacheRules } from "./cache-rules.js";
import { type CacheSession, MAX_ENDS, type RequestEnd } from "./cache-session.js";
import { expectedRemaining, type SwapCase, swapPays } from "./swap-price.js";

/** Why a request's prompt cannot be read from the cache, or null when it may be. */
export type ColdReason = "first request" | "ttl" | "rewritten";

/** What the policy decided for a request's first-time agings. */
export type AgingDecision = "cold" | "lookback" | "pays" | "held";

/** Blocks kept in hand when judging the lookback (thinking blocks, merged results). */
const LOOKBACK_MARGIN = 4;
/** Growth per request assumed before one was measured, in tokens. */
export const DEFAULT_GROWTH = 2_000;

/** The start of a request: whether the provider's cache can hold any of its prompt. */
export function coldReason(session: CacheSession, rules: CacheRules, messages: readonly AgentMessage[], now: number, systemPromptChanged: boolean): ColdReason | null {
  if (session.lastRequestAt === null) return "first request";
  if (now - session.lastRequestAt > rules.ttlMs) return "ttl";
  if (systemPromptChanged || (session.firstKey !== null && messageKey(messages[0]) !== session.firstKey)) return "rewritten";
  return null;
}

/**
 * The end of a request: what the next one is judged against. `count`: the host's messages in
 * it (the coordinates aging sees; our gauge lines among them are not counted). O(1).
 */
export function rememberRequest(session: CacheSession, count: number, tokens: number, now: number, cold: ColdReason | null, firstKey: string | null): void {
  if (cold === "rewritten" || cold === "first request") {
    session.ends = [];
    session.requests = 0;
  } else if (session.lastTokens > 0 && tokens >= session.lastTokens) {
    const g = tokens - session.lastTokens;
    session.growth = session.growth > 0 ? 0.7 * session.growth + 0.3 * g : g;
  }
  session.requests++;
  session.ends.push({ count, at: now });
  if (session.ends.length > MAX_ENDS) session.ends.splice(0, session.ends.length - MAX_ENDS);
  session.lastRequestAt = now;
  session.firstKey = firstKey;
  session.lastTokens = tokens;
}

export interface GateContext {
  rules: CacheRules;
  session: CacheSession;
  cold: ColdReason | null;
  /** the request's tokens before aging, and where the host compacts */
  tokens: number;
  compactAt: number;
  /** when the request is made (the messages' clock) */
  now: number;
  /** told what was decided (tests, the breakdown) */
  decided?: (d: AgingDecision, fresh: FreshAging, priced?: SwapCase) => void;
}

/** The aging gate for a request, or undefined where aging runs as before (no breakpoint rules). */
export function agingGate(ctx: GateContext): AgingGate | undefined {
  if (ctx.rules.family !== "anthropic") return undefined;
  return (fresh, messages) => {
    const { decision, priced } = decide(ctx, fresh, messages);
    // entries of earlier requests that end after the change no longer match any later request
    if (decision !== "held") ctx.session.ends = ctx.session.ends.filter((e) => e.count <= fresh.earliest);
    ctx.decided?.(decision, fresh, priced);
    return decision !== "held";
  };
}

function decide(ctx: GateContext, fresh: FreshAging, messages: readonly AgentMessage[]): { decision: AgingDecision; priced?: SwapCase } {
  const { rules, session } = ctx;
  if (ctx.cold) return { decision: "cold" };
  const previous = session.ends[session.ends.length - 1];
  const reused = reusableEnd(ctx, fresh.earliest, messages);
  const rewritten = reused && previous ? tokensBetween(messages, reused.count, previous.count) : ctx.tokens;
  const growth = session.growth > 0 ? session.growth : DEFAULT_GROWTH;
  const priced: SwapCase = {
    rewritten,
    saved: fresh.savedChars / 4,
    remaining: expectedRemaining(session.requests, ctx.tokens, ctx.compactAt, growth),
    writePrice: rules.writePrice,
    readPrice: rules.readPrice,
  };
  if (!swapPays(priced)) return { decision: "held", priced };
  return { decision: reused ? "lookback" : "pays", priced };
}

/**
 * The latest earlier request's end at or before the change whose entry the provider still finds:
 * within the TTL of its writing, and close enough to this request's breakpoint (the gauge lines
 * placed after it counted, and a margin for blocks the provider's format adds).
 */
function reusableEnd(ctx: GateContext, earliest: number, messages: readonly AgentMessage[]): RequestEnd | null {
  const { rules, session } = ctx;
  for (let i = session.ends.length - 1; i >= 0; i--) {
    const e = session.ends[i]!;
    if (e.count > earliest) continue;
    if (ctx.now - e.at > rules.ttlMs) return null;
    const blocks = blocksBetween(messages, e.count, messages.length, rules.lookbackBlocks);
    return blocks + linesFrom(session, e.count) + LOOKBACK_MARGIN <= rules.lookbackBlocks ? e : null;
  }
  return null;
}

/** Our gauge lines placed at or after the host's message `from` (each a block of its own). */
function linesFrom(session: CacheSession, from: number): number {
  let n = 0;
  for (const a of session.anchors) if (a.at >= from) n++;
  return n;
}

/** Content blocks of messages[from..to) as the provider counts them (a string content is one); stops past `cap`. */
function blocksBetween(messages: readonly AgentMessage[], from: number, to: number, cap: number): number {
  let n = 0;
  for (let i = from; i < to && n <= cap; i++) {
    const c = (messages[i] as { content?: unknown }).content;
    n += Array.isArray(c) ? Math.max(1, c.length) : 1;
  }
  return n;
}

/** Estimated tokens of messages[from..to) (within the lookback: a few messages). */
function tokensBetween(messages: readonly AgentMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < Math.min(to, messages.length); i++) n += messageTokens(messages[i]!);
  return n;
}
