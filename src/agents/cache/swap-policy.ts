/**
 * When a change to earlier history pays under breakpoint rules (docs/design.md#aging-under-a-prompt-cache):
 * it rewrites at 1.25x, instead of reading at 0.1x, all from the latest entry the provider still reuses.
 * First-time agings go in when the cache is cold or the reads saved over the expected remaining requests
 * exceed the rewrite; else they are held and offered again, so one rewrite carries the batch.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AgingGate, FreshAging } from "../artifacts/aged-offload.js";
import { messageKey } from "../messages/message-key.js";
import { messageTokens } from "../gauge/context-gauge.js";
import type { CacheRules } from "./cache-rules.js";
import { type CacheSession, MAX_ENDS, type RequestEnd } from "./cache-session.js";

/** Why a request's prompt cannot be read from the cache, or null when it may be. */
export type ColdReason = "first request" | "ttl" | "rewritten";

/** What the policy decided for a request's first-time agings. */
export type AgingDecision = "cold" | "lookback" | "pays" | "held";

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

/** The end of a request, for the next one to be judged against; `count` excludes our gauge lines. */
export function rememberRequest(session: CacheSession, count: number, tokens: number, now: number, cold: ColdReason | null, firstKey: string | null): void {
  if (cold === "rewritten" || cold === "first request") {
    session.ends = [];
    session.requests = 0;
  } else if (session.lastTokens > 0 && tokens >= session.lastTokens) {
    const g = tokens - session.lastTokens;
    session.growth = session.growth > 0 ? 0.7 * session.growth + 0.3 * g : g;
  }
  session.requests++;
  session.ends = [...session.ends, { count, at: now }].slice(-MAX_ENDS);
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
    let decision: AgingDecision = "cold";
    let priced: SwapCase | undefined;
    if (!ctx.cold) {
      const previous = ctx.session.ends.at(-1);
      const reused = reusableEnd(ctx, fresh.earliest, messages);
      // estimated tokens from the reused entry to the previous request's end (a few messages: within the lookback)
      const between = reused && previous ? messages.slice(reused.count, previous.count) : null;
      const rewritten = between ? between.reduce((n, m) => n + messageTokens(m), 0) : ctx.tokens;
      priced = priceSwap(ctx, rewritten, fresh.savedChars / 4, ctx.tokens);
      decision = !swapPays(priced) ? "held" : reused ? "lookback" : "pays";
    }
    // entries of earlier requests that end after the change no longer match any later request
    if (decision !== "held") ctx.session.ends = ctx.session.ends.filter((e) => e.count <= fresh.earliest);
    ctx.decided?.(decision, fresh, priced);
    return decision !== "held";
  };
}

/** The latest request end at or before the change still within the TTL and the lookback (gauge lines counted). */
function reusableEnd(ctx: GateContext, earliest: number, messages: readonly AgentMessage[]): RequestEnd | null {
  const { rules, session } = ctx;
  const e = session.ends.findLast((end) => end.count <= earliest);
  if (!e || ctx.now - e.at > rules.ttlMs) return null;
  // content blocks after it as the provider counts them (a string content is one), counted up to past the lookback
  let blocks = 0;
  for (let i = e.count; i < messages.length && blocks <= rules.lookbackBlocks; i++) {
    const c = (messages[i] as { content?: unknown }).content;
    blocks += Array.isArray(c) ? Math.max(1, c.length) : 1;
  }
  const lines = session.anchors.filter((a) => a.at >= e.count).length; // a block each
  return blocks + lines + LOOKBACK_MARGIN <= rules.lookbackBlocks ? e : null;
}

/** A swap of `saved` tokens out of the `rewritten` region (uncached input tokens): pays when savings > cost. */
export interface SwapCase {
  rewritten: number;
  saved: number;
  /** requests expected after this one that would read the saved tokens */
  remaining: number;
  /** against uncached input (Anthropic 5 min: 1.25 / 0.1) */
  writePrice: number;
  readPrice: number;
}

/** The extra this request pays (negative when the swap shrinks the rewrite it causes). */
export function swapCost(c: SwapCase): number {
  const saved = Math.min(c.saved, c.rewritten);
  return (c.rewritten - saved) * c.writePrice - c.rewritten * c.readPrice;
}

export function swapSavings(c: SwapCase): number {
  return Math.max(0, c.saved) * c.readPrice * Math.max(0, c.remaining);
}

export function swapPays(c: SwapCase): boolean {
  return swapSavings(c) > swapCost(c);
}

type PriceContext = Pick<GateContext, "rules" | "session" | "compactAt">;

/** A swap priced under `rules`, its savings running from a context of `tokensLeft` until the host compacts. */
export function priceSwap(p: PriceContext, rewritten: number, saved: number, tokensLeft: number): SwapCase {
  const growth = p.session.growth > 0 ? p.session.growth : DEFAULT_GROWTH;
  const remaining = expectedRemaining(p.session.requests, tokensLeft, p.compactAt, growth);
  return { rewritten, saved, remaining, writePrice: p.rules.writePrice, readPrice: p.rules.readPrice };
}

const MIN_REMAINING = 1;
export const MAX_REMAINING = 200;

/**
 * Requests a swap's savings accrue over: under the "Copernican" prior (a session seen for n requests runs
 * r more with chance n / (n + r)) integrated up to the horizon H (the host's compaction): n * ln(1 + H / n).
 */
export function expectedRemaining(requestsSoFar: number, tokens: number, compactAt: number, growthPerRequest: number): number {
  const untilCompaction = compactAt > tokens && growthPerRequest > 0 ? (compactAt - tokens) / growthPerRequest : compactAt > tokens ? MAX_REMAINING : 0;
  const horizon = Math.min(MAX_REMAINING, untilCompaction);
  const n = Math.max(1, requestsSoFar);
  return Math.min(MAX_REMAINING, Math.max(MIN_REMAINING, n * Math.log1p(horizon / n)));
}

/**
 * Smart trim under a prompt cache (docs/design.md#smart-trim-under-a-prompt-cache-and-the-cold-moment-trim):
 * a cold request writes its whole prompt anyway, so it trims for free past the middle of a trim cycle.
 */
export function coldTrimAbove(safeLimit: number, headroom: number): number {
  return Math.floor((Math.floor(safeLimit * (1 - headroom)) + safeLimit) / 2);
}

/** Whether the provider really has nothing cached (a first request in this process may be warm). */
export function coldForTrim(cold: ColdReason | null): boolean {
  return cold === "ttl" || cold === "rewritten";
}

/** `tokens`: the request's before the trim; `saved`: what the batch drops. */
export type TrimPrice = PriceContext & Pick<GateContext, "tokens"> & { saved: number };

/** The rewrite is the whole prompt (a trim lies far before the lookback); savings count from what is left. */
export function trimPays(p: TrimPrice): boolean {
  return swapPays(priceSwap(p, p.tokens, p.saved, Math.max(0, p.tokens - p.saved)));
}
