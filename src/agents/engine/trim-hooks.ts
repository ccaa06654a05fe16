/**
 * Smart trim as the engine uses it (docs/archive.md#smart-trim): the key's SmartTrim, applied before
 * the automatic recall; what it trims is archived off the request path. A failure sends the messages as they were.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { recallCapTokens, recallQueryOf } from "../archive/recall-query.js";
import { stripInjectedBlocks } from "../archive/segments.js";
import type { SmartTrim, TrimOffer, TrimResult } from "../trim/smart-trim.js";
import { coldForTrim, type ColdReason, coldTrimAbove, trimPays } from "../cache/swap-policy.js";
import { cacheRulesFor, type HostModel } from "../cache/cache-rules.js";
import { coldAhead, type RequestCache } from "./cache-hooks.js";
import { archiveMessages } from "./archive-hooks.js";
import { reserveTokensOf } from "./runtime.js";
import { applyCacheBudget, reweighSession, sessionAt } from "./cache-budget.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";

/** The session key's SmartTrim (session.ts). */
export function smartTrimFor(engine: ContextManagerEngine): SmartTrim {
  applyCacheBudget(engine.runtime.config); // the caches' budgets: set there, once per configuration
  return sessionAt(engine.runtime.stateDir, engine.sessionKey).smartTrim();
}

/**
 * Smart trim's fixed settings (docs/configuration.md#retired-keys): from the high mark H (safeLimit)
 * down to L, 60% below, in one batch. Per request with growth g that costs about
 * write * L * g / (H - L) + read * (L + H) / 2; at 30% the context sat 1.07-1.10x above the host's mean.
 */
const FIXED_SETTINGS = { headroom: 0.6, keepRecent: 6, marker: true } as const;

/** safeLimit = window - reserve (runtime.ts reserveTokensOf) - recall cap (0: no window known, no trimming). */
export function safeLimitOf(engine: ContextManagerEngine, contextWindow: number): number {
  const cfg = engine.runtime.config;
  const window = contextWindow || engine.runtime.contextWindowTokens;
  if (!(window > 0)) return 0;
  return Math.max(0, window - reserveTokensOf(engine.runtime) - recallCapTokens(cfg, window));
}

/** The reading above which a request trims because its cache is cold (cache/swap-policy.ts); null: not cold. */
function coldCutAbove(engine: ContextManagerEngine, contextWindow: number, cold: ColdReason | null | undefined): number | null {
  if (!coldForTrim(cold ?? null)) return null;
  const safeLimit = safeLimitOf(engine, contextWindow);
  return safeLimit > 0 ? coldTrimAbove(safeLimit, FIXED_SETTINGS.headroom) : null;
}

/** A run's first request as its start sees it (`at`: the session's clock). */
export interface RunStart {
  messages: readonly AgentMessage[];
  tokens: number;
  model?: HostModel;
  at: number;
}

/**
 * At a run start, reading only: whether its first request is cold-trimmed or, with smart trim on, may trim.
 * Not in a first run below the low mark (`pi -p` mostly never trims and would pay the definition); without
 * a cache, from the start.
 */
export function trimAhead(engine: ContextManagerEngine, ahead: RunStart): boolean {
  try {
    const cfg = engine.runtime.config;
    const window = engine.runtime.contextWindowTokens;
    const above = coldCutAbove(engine, window, coldAhead(engine, ahead.messages, ahead.model, ahead.at));
    if (above !== null && ahead.tokens > above) return true;
    if (!cfg.smartTrim) return false;
    if (cacheRulesFor(cfg, ahead.model).family === "none") return true;
    if (ahead.messages.some((m) => m.role === "user")) return true;
    const safeLimit = safeLimitOf(engine, window);
    return safeLimit > 0 && ahead.tokens >= Math.floor(safeLimit * (1 - FIXED_SETTINGS.headroom));
  } catch (e) {
    engine.log.fail("smart trim", e);
    return false;
  }
}

/** Whether smart trim runs on this request: on, or off with a cold cut due or one made before (its messages stay out). */
function trimRuns(engine: ContextManagerEngine, tokens: number, coldAbove: number | null): boolean {
  if (engine.runtime.config.smartTrim) return true;
  if (coldAbove !== null && tokens > coldAbove) return true;
  return sessionAt(engine.runtime.stateDir, engine.sessionKey).trimsMessages;
}

/** When the key's SmartTrim would read a long history for the first time: reading it in slices that yield. */
export function smartTrimCatchUp(engine: ContextManagerEngine, messages: AgentMessage[], tokens: number, contextWindow: number, cache?: RequestCache | null): Promise<void> | null {
  try {
    if (!trimRuns(engine, tokens, coldCutAbove(engine, contextWindow, cache?.cold))) return null;
    const t = smartTrimFor(engine);
    return t.needsCatchUp(messages) ? t.catchUp(messages).catch((e: unknown) => void engine.log.fail("smart trim", e)) : null;
  } catch (e) {
    engine.log.fail("smart trim", e);
    return null;
  }
}

/**
 * The request's messages with smart trim applied; null when off, nothing trimmed or failed. Under a
 * cache (cache/swap-policy.ts) a cold request trims even with smart trim off, a warm batch only when it pays.
 */
export function withSmartTrim(
  engine: ContextManagerEngine,
  messages: AgentMessage[],
  tokens: number,
  contextWindow: number,
  pendingRequest?: string,
  cache?: RequestCache | null,
): TrimResult | null {
  const cfg = engine.runtime.config;
  try {
    const safeLimit = safeLimitOf(engine, contextWindow);
    if (safeLimit <= 0) return null;
    const coldAbove = coldCutAbove(engine, contextWindow, cache?.cold);
    if (!trimRuns(engine, tokens, coldAbove)) return null;
    const pending = pendingRequest ? stripInjectedBlocks(pendingRequest).trim() : "";
    const { query, requestAt } = recallQueryOf(messages, pending);
    const window = contextWindow || engine.runtime.contextWindowTokens;
    const compactAt = Math.max(0, window - reserveTokensOf(engine.runtime));
    // a warm batch in a run without context_search still trims: else the host would compact there
    const accept = cache && coldAbove === null ? (offer: TrimOffer) => trimPays({ rules: cache.rules, session: cache.session, tokens, compactAt, saved: offer.tokens }) : undefined;
    const result = smartTrimFor(engine).apply(
      { messages, tokens, query, requestAt, ...(accept ? { accept } : {}) },
      { safeLimit: cfg.smartTrim ? safeLimit : Number.POSITIVE_INFINITY, ...FIXED_SETTINGS, ...(coldAbove !== null ? { trimAbove: coldAbove, safeLimit } : {}) },
    );
    if (result.newlyTrimmed.length > 0) {
      const trimmed = result.newlyTrimmed;
      // off the request path: redaction and chunking run after the request has left
      setImmediate(() => void archiveMessages(engine, trimmed));
    }
    reweighSession(`${engine.runtime.stateDir}\0${engine.sessionKey}`); // its SmartTrim grew with the history
    engine.log.clear("smart trim");
    return result.messages === messages ? null : result;
  } catch (e) {
    engine.log.fail("smart trim", e);
    return null;
  }
}
