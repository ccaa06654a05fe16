/**
 * When a change to earlier history pays under the provider's cache rules (docs/design.md#aging-under-a-prompt-cache).
 * Under Anthropic's breakpoint rules a change before the previous request's breakpoint makes the
 * request write everything after it (1.25x) instead of reading it (0.1x), so what ages for the
 * first time is swapped in only:
 *   - when the cache is cold anyway: no request within the TTL, or the prompt was just rewritten
 *     (a compaction, a restore block in the system prompt, a restart of this process);
 *   - when the change lies within the lookback of an earlier request's breakpoint;
 *   - as a batch whose reads saved over the expected remaining requests exceed the rewrite of the
 *     whole prompt (no entry before the change is within reach, or the lookback case applied).
 * Under automatic prefix caching (openai) and without a cache, aging runs as it always did.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AgingGate, FreshAging } from "../artifacts/aged-offload.js";
import { messageKey } from "../messages/message-key.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE } from "../messages/custom-types.js";
import type { CacheRules } from "./cache-rules.js";
import { type CacheSession, MAX_ENDS } from "./cache-session.js";

/** Why a request's prompt cannot be read from the cache, or null when it may be. */
export type ColdReason = "first request" | "ttl" | "rewritten";

/** What the policy decided for a request's first-time agings. */
export type AgingDecision = "cold" | "lookback" | "pays" | "held";

/** Requests expected at least / at most before the next compaction (a bound on the estimate). */
const MIN_REMAINING = 1;
const MAX_REMAINING = 100;
/** Blocks kept in hand when judging the lookback (thinking blocks, merged results). */
const LOOKBACK_MARGIN = 4;
/** Growth per request assumed before one was measured, in tokens. */
const DEFAULT_GROWTH = 2_000;

/** The start of a request: whether the provider's cache can hold any of its prompt. */
export function coldReason(session: CacheSession, rules: CacheRules, messages: readonly AgentMessage[], now: number, systemPromptChanged: boolean): ColdReason | null {
  if (session.lastRequestAt === null) return "first request";
  if (now - session.lastRequestAt > rules.ttlMs) return "ttl";
  if (systemPromptChanged || (session.firstKey !== null && messageKey(messages[0]) !== session.firstKey)) return "rewritten";
  return null;
}

/** The end of a request: what the next one is judged against. */
export function rememberRequest(session: CacheSession, sent: readonly AgentMessage[], tokens: number, now: number, cold: ColdReason | null, firstKey: string | null): void {
  if (cold === "rewritten" || cold === "first request") session.ends = [];
  else if (session.lastTokens > 0 && tokens >= session.lastTokens) {
    const g = tokens - session.lastTokens;
    session.growth = session.growth > 0 ? 0.7 * session.growth + 0.3 * g : g;
  }
  // in the coordinates aging sees: the messages without our gauge lines
  let n = 0;
  for (const m of sent) if (customTypeOf(m) !== GAUGE_CUSTOM_TYPE) n++;
  session.ends.push(n);
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
  /** told what was decided (tests, the breakdown) */
  decided?: (d: AgingDecision, fresh: FreshAging) => void;
}

/** The aging gate for a request, or undefined where aging runs as before (no breakpoint rules). */
export function agingGate(ctx: GateContext): AgingGate | undefined {
  if (ctx.rules.family !== "anthropic") return undefined;
  return (fresh, messages) => {
    const d = decide(ctx, fresh, messages);
    // entries of earlier requests that end after the change no longer match any later request
    if (d !== "held") ctx.session.ends = ctx.session.ends.filter((e) => e <= fresh.earliest);
    ctx.decided?.(d, fresh);
    return d !== "held";
  };
}

function decide(ctx: GateContext, fresh: FreshAging, messages: readonly AgentMessage[]): AgingDecision {
  const { rules, session } = ctx;
  if (ctx.cold) return "cold";
  const growth = session.growth > 0 ? session.growth : DEFAULT_GROWTH;
  // an earlier request's entry before the change, close enough to this request's breakpoint that
  // the provider finds it (the gauge lines placed after it counted, and a margin for blocks the
  // provider's format adds)
  const before = latestEndAtOrBefore(session.ends, fresh.earliest);
  if (before !== null && blocksBetween(messages, before, messages.length) + session.anchors.length + LOOKBACK_MARGIN <= rules.lookbackBlocks) return "lookback";
  // no entry before the change within reach: the provider writes the whole prompt again
  const rewritten = ctx.tokens;
  const saved = fresh.savedChars / 4;
  const remaining = ctx.compactAt > ctx.tokens ? Math.min(MAX_REMAINING, Math.max(MIN_REMAINING, (ctx.compactAt - ctx.tokens) / growth)) : MIN_REMAINING;
  return saved * rules.readPrice * remaining > rewritten * (rules.writePrice - rules.readPrice) ? "pays" : "held";
}

function latestEndAtOrBefore(ends: readonly number[], index: number): number | null {
  for (let i = ends.length - 1; i >= 0; i--) if (ends[i]! <= index) return ends[i]!;
  return null;
}

/** Content blocks of messages[from..to) as the provider counts them (a string content is one). */
function blocksBetween(messages: readonly AgentMessage[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = (messages[i] as { content?: unknown }).content;
    n += Array.isArray(c) ? Math.max(1, c.length) : 1;
  }
  return n;
}
