/**
 * One model request, host-neutral (pi's `context`, the plugin's `assemble`): aged outputs swapped first (the
 * gauge reads what is sent), gauge, capture, the 80% checkpoint, smart trim, recall; the prompt cache's policy
 * gates aging and places the gauge lines. Never throws. Also offload's tool_result patch and warm start.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type ContextReading, estimateContextTokens, type GaugeReading } from "../gauge/context-gauge.js";
import type { AgingGate } from "../artifacts/aged-offload.js";
import { messageKey } from "../messages/message-key.js";
import { livedTime } from "../../infra/process-services.js";
import { agingAgeUnder, cacheRulesFor, type HostModel } from "../cache/cache-rules.js";
import { gaugeStep, withAnchoredGauge } from "../cache/gauge-anchors.js";
import { agingGate, coldForTrim, type ColdReason, coldReason, coldTrimAbove, trimPays } from "../cache/swap-policy.js";
import { rememberRequest } from "../cache/swap-policy.js";
import { recallCapTokens, recallQueryOf } from "../archive/recall-query.js";
import { stripInjectedBlocks } from "../archive/segments.js";
import type { SmartTrim, TrimOffer, TrimResult } from "../trim/smart-trim.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { archiveMessages, withAutoRecall } from "./archive-hooks.js";
import { applyCacheBudget, sessionAt, sessionRegistry } from "./cache-budget.js";
import { offloadSettings, offloadToolResult, type ToolResultLike } from "../artifacts/offload.js";
import { addStash } from "../artifacts/session-stashes.js";
import type { AgedMemory } from "./session.js";
import type { RequestHost } from "./request-log.js";
import { reserveTokensOf, type ContextDecision, type EngineCore } from "./runtime.js";

export interface ModelRequest {
  /** what the host would send */
  messages: AgentMessage[];
  /** the host's own reading of the context (pi's getContextUsage()); absent: estimated */
  usage?: ContextReading;
  /** a prompt the model reads after `messages` (OpenClaw 2026.9's fenced turn): gauged and queried first */
  pendingPrompt?: string;
  /** what the host adds to the messages (system prompt, tools), for the context breakdown; read lazily */
  host?: RequestHost;
  /** for the prompt-cache policy: the model, and whether the system prompt changed (a restore block came or went) */
  cache?: { model?: HostModel; systemPromptChanged?: boolean };
}

export interface PreparedRequest {
  /** what to send: the input array itself when nothing changed */
  messages: AgentMessage[];
  reading: GaugeReading;
  /** the pending prompt's share of reading.tokens (0: none) */
  pendingTokens: number;
}

export async function prepareRequest(engine: EngineCore, request: ModelRequest): Promise<PreparedRequest> {
  const pending = request.pendingPrompt;
  const prompt = pending === undefined ? null : ({ role: "user", content: pending, timestamp: 0 } as AgentMessage);
  const pendingTokens = prompt ? estimateContextTokens([prompt]) : 0;
  // the request's tokens before aging, as the gauge would read them (the policy's view of the window)
  const told = request.usage?.tokens;
  const tokens =
    pending === undefined && typeof told === "number" ? told : estimateContextTokens(request.messages) + pendingTokens;
  // the prompt-cache policy (null: no cache, the steps run as they always did)
  const cache = beginRequestCache(engine, request.messages, tokens, request.cache, pending !== undefined);
  const sent = agedMessages(request.messages, engine, cache?.gate, cache?.ageTurns);
  const usage = pending === undefined ? request.usage : usageWith(sent, pendingTokens, engine.runtime.contextWindowTokens);
  const decision = await engine.onContext(sent, usage, cache === null);
  const kept = cache ? withCacheGauge(cache, withoutSuperseded(sent), decision) : withoutSuperseded(decision.messages ?? sent);
  // by reference, before anything awaits: the 80% checkpoint this request started records its breakdown
  const record = { unaged: request.messages, sent, final: kept, host: request.host ?? {}, tokens: decision.reading.tokens, contextWindow: decision.reading.contextWindow };
  engine.requests.record(record);
  // a long history smart trim reads for the first time is read in slices that yield (rare)
  const catchUp = smartTrimCatchUp(engine, kept, decision.reading.tokens, decision.reading.contextWindow, cache);
  if (catchUp) await catchUp;
  const trim = withSmartTrim(engine, kept, decision.reading.tokens, decision.reading.contextWindow, pending, cache);
  const base = trim?.messages ?? kept;
  // what is sent: the reading less what this request trimmed (earlier trims were never in it)
  const reading = trim && trim.newTokens > 0 ? { ...decision.reading, tokens: Math.max(0, decision.reading.tokens - trim.newTokens) } : decision.reading;
  if (base !== kept || reading !== decision.reading) engine.requests.complete(record, base, reading.tokens, trim?.newTokens);
  const messages = (await withAutoRecall(engine, base, decision.reading.contextWindow, pending))?.messages ?? base;
  if (messages !== base) engine.requests.complete(record, messages);
  // the request as sent: what the next one is judged against
  const hostCount = request.messages.length;
  if (cache) rememberRequest(cache.session, hostCount, reading.tokens, cache.at, cache.cold, cache.firstKey);
  const cfg = engine.runtime.config;
  engine.requests.refreshGaugePhrase(reading.utilization, cfg.gaugeThreshold, { contextWindow: reading.contextWindow, checkpointThreshold: cfg.checkpointThreshold });
  return { messages, reading, pendingTokens };
}

/** The gauge's reading with `extra` tokens (the pending prompt) counted; undefined: the messages' own estimate. */
function usageWith(messages: readonly AgentMessage[], extra: number, window: number): ContextReading | undefined {
  if (extra <= 0 || window <= 0) return undefined;
  const tokens = estimateContextTokens(messages) + extra;
  return { tokens, contextWindow: window, percent: (tokens / window) * 100 };
}

/**
 * Drops every restore block and gauge line but the latest of each (older copies in pi's kept
 * window would contradict it), and /context reports; the input array when nothing is dropped.
 */
export function withoutSuperseded(messages: AgentMessage[]): AgentMessage[] {
  const last = new Map<string, number>();
  let drop = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== "custom") continue; // most messages: no call per message on the request path
    const t = customTypeOf(messages[i]!);
    if (t === REPORT_CUSTOM_TYPE || (t !== undefined && LATEST_ONLY.has(t) && last.has(t))) drop++;
    if (t !== undefined && LATEST_ONLY.has(t)) last.set(t, i);
  }
  if (drop === 0) return messages;
  return messages.filter((m, i) => {
    const t = customTypeOf(m);
    return t === undefined || (LATEST_ONLY.has(t) ? last.get(t) === i : t !== REPORT_CUSTOM_TYPE);
  });
}

const LATEST_ONLY: ReadonlySet<string> = new Set([RESTORE_CUSTOM_TYPE, GAUGE_CUSTOM_TYPE]);

// --- the prompt-cache policy around one request (src/agents/cache/); `none`: no step runs

type RequestCache = NonNullable<ReturnType<typeof beginRequestCache>>;

/** The request's cache context, or null under `none` (no cache: today's behaviour). Never throws. */
function beginRequestCache(engine: EngineCore, messages: readonly AgentMessage[], tokens: number, hints: ModelRequest["cache"], promptPending: boolean) {
  try {
    const cfg = engine.runtime.config;
    const rules = cacheRulesFor(cfg, hints?.model);
    const session = sessionAt(engine.runtime.stateDir, engine.sessionKey).cache;
    if (rules.family === "none") {
      session.last = { family: "none", cold: null, aging: null, gaugeLines: 0 };
      return null;
    }
    const now = Date.now();
    // when the request is made, on the messages' clock (the TTL's); a prompt not yet in the messages
    // (OpenClaw's fenced turn) is sent now: the idle gap counts
    const at = livedTime(promptPending ? now : requestTime(messages, now));
    const cold = coldReason(session, rules, messages, at, hints?.systemPromptChanged === true);
    session.last = { family: rules.family, cold, aging: null, gaugeLines: 0 };
    const window = engine.runtime.contextWindowTokens;
    const compactAt = window > 0 ? Math.max(0, window - reserveTokensOf(engine.runtime)) : 0;
    const gate = agingGate({ rules, session, cold, tokens, compactAt, now: at, decided: (d) => (session.last.aging = d) });
    const ageTurns = agingAgeUnder(rules, cfg); // the age aging runs at (assistant turns)
    // firstKey: what the next request's first message is compared with
    return { rules, session, now, at, cold, gate, ageTurns, firstKey: messageKey(messages[0]) };
  } catch (e) {
    engine.log.fail("prompt cache", e);
    return null;
  }
}

/** The messages with the gauge lines placed by the policy (gauge-anchors.ts). */
function withCacheGauge(rc: RequestCache, messages: AgentMessage[], decision: ContextDecision): AgentMessage[] {
  const text = decision.gaugeText ?? "";
  const action = decision.gaugeAction ?? "none";
  const line = text ? { text, step: gaugeStep(action, decision.reading.utilization), force: decision.checkpointWrite !== undefined } : null;
  // a cold request is written whole anyway: the earlier readings go
  if (rc.cold !== null && rc.cold !== "first request") rc.session.anchors = [];
  const out = withAnchoredGauge(messages, rc.session, line, rc.now);
  rc.session.last.gaugeLines = rc.session.anchors.length;
  return out;
}

/** The request's time: its newest message's timestamp (a replay is judged on its real gaps), else the clock. */
export function requestTime(messages: readonly AgentMessage[], fallback: number): number {
  const t = (messages[messages.length - 1] as { timestamp?: unknown } | undefined)?.timestamp;
  return typeof t === "number" && Number.isFinite(t) && t > 0 ? t : fallback;
}

// --- smart trim (docs/archive.md#smart-trim): what it trims is archived off the request path

/** The session key's SmartTrim (session.ts). */
function smartTrimFor(engine: EngineCore): SmartTrim {
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
function safeLimitOf(engine: EngineCore, contextWindow: number): number {
  const cfg = engine.runtime.config;
  const window = contextWindow || engine.runtime.contextWindowTokens;
  if (!(window > 0)) return 0;
  return Math.max(0, window - reserveTokensOf(engine.runtime) - recallCapTokens(cfg, window));
}

/** The reading above which a request trims because its cache is cold (cache/swap-policy.ts); null: not cold. */
function coldCutAbove(engine: EngineCore, contextWindow: number, cold: ColdReason | null | undefined): number | null {
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
 * At a run start, reading only: whether its first request is cold-trimmed or, with smart trim on, may trim
 * (without a cache: yes; not in a first run below the low mark: `pi -p` would pay the definition).
 */
export function trimAhead(engine: EngineCore, ahead: RunStart): boolean {
  try {
    const cfg = engine.runtime.config;
    const window = engine.runtime.contextWindowTokens;
    const rules = cacheRulesFor(cfg, ahead.model);
    const memory = sessionAt(engine.runtime.stateDir, engine.sessionKey).cache; // read only: a look ahead records nothing
    const cold = rules.family === "none" ? null : coldReason(memory, rules, ahead.messages, ahead.at, false);
    const above = coldCutAbove(engine, window, cold);
    if (above !== null && ahead.tokens > above) return true;
    if (!cfg.smartTrim) return false;
    if (rules.family === "none") return true;
    if (ahead.messages.some((m) => m.role === "user")) return true;
    const safeLimit = safeLimitOf(engine, window);
    return safeLimit > 0 && ahead.tokens >= Math.floor(safeLimit * (1 - FIXED_SETTINGS.headroom));
  } catch (e) {
    engine.log.fail("smart trim", e);
    return false;
  }
}

/** Whether smart trim runs on this request: on, or off with a cold cut due or one made before (its messages stay out). */
function trimRuns(engine: EngineCore, tokens: number, coldAbove: number | null): boolean {
  if (engine.runtime.config.smartTrim) return true;
  if (coldAbove !== null && tokens > coldAbove) return true;
  return sessionAt(engine.runtime.stateDir, engine.sessionKey).trimsMessages;
}

/** When the key's SmartTrim would read a long history for the first time: reading it in slices that yield. */
function smartTrimCatchUp(engine: EngineCore, messages: AgentMessage[], tokens: number, contextWindow: number, cache?: RequestCache | null): Promise<void> | null {
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
  engine: EngineCore,
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
    const trimmed = result.newlyTrimmed;
    // off the request path: redaction and chunking run after the request has left
    if (trimmed.length > 0) setImmediate(() => void archiveMessages(engine, trimmed));
    sessionRegistry().reweigh(`${engine.runtime.stateDir}\0${engine.sessionKey}`); // its SmartTrim grew
    engine.log.clear("smart trim");
    return result.messages === messages ? null : result;
  } catch (e) {
    engine.log.fail("smart trim", e);
    return null;
  }
}

// --- offload (docs/artifacts.md): a failure keeps the original and is logged once (engine.log)

/** The key's aged-offload memory (its Session): one per engine would flip-flop the prompt and break the cache. */
function agedFor(engine: EngineCore): AgedMemory {
  const { stateDir } = engine.runtime;
  applyCacheBudget(engine.runtime.config);
  const m = sessionAt(stateDir, engine.sessionKey).agedOffload(offloadSettings(engine.runtime.config));
  sessionRegistry().reweigh(`${stateDir}\u0000${engine.sessionKey}`); // weighed again: it grows with the session
  // the log, not the engine: a memory kept past its engine must not keep the engine alive
  const log = engine.log;
  m.offload.onError = (e) => log.fail("artifact stash", e);
  return m;
}

/**
 * Aged tool results swapped for handle + preview (docs/artifacts.md#aged-offload); a memory that never
 * saw the history is warmed first. `gate`, `ageTurns`: the prompt-cache policy's (cache/swap-policy.ts).
 */
export function agedMessages(messages: AgentMessage[], engine: EngineCore, gate?: AgingGate, ageTurns?: number): AgentMessage[] {
  if (!engine.runtime.config.offload) return messages;
  try {
    const aged = agedFor(engine);
    if (!aged.warmed) {
      aged.warmed = true;
      aged.offload.warm(messages);
    }
    return aged.offload.apply(messages, gate, ageTurns);
  } catch (e) {
    engine.log.fail("aged offload", e);
    return messages;
  }
}

/**
 * A resumed session's start: the old results judged off the request path, so its first request goes out
 * aged; the messages warmed are those the model still sees (from the latest compaction's first kept entry on).
 */
export function warmAgedOffload(engine: EngineCore, entries: readonly unknown[]): void {
  if (!engine.runtime.config.offload || entries.length === 0) return;
  try {
    const aged = agedFor(engine);
    aged.warmed = true;
    const list = entries as Array<{ type?: string; id?: string; firstKeptEntryId?: string; message?: AgentMessage }>;
    const last = list.findLastIndex((e) => e?.type === "compaction");
    const kept = last < 0 ? 0 : list.findIndex((e) => e?.id === list[last]!.firstKeptEntryId);
    const start = last < 0 ? 0 : kept >= 0 ? kept : last + 1;
    aged.offload.warm(list.slice(start).flatMap((e) => (e?.type === "message" && e.message ? [e.message] : [])));
  } catch (e) {
    engine.log.fail("aged offload", e);
  }
}

/** The patch for pi's tool_result event, or undefined to leave the result as it is. */
export function offloadPatch(
  event: ToolResultLike & { input?: unknown },
  engine: EngineCore,
): { content: Array<{ type: "text"; text: string }> } | undefined {
  if (!engine.runtime.config.offload) return undefined;
  try {
    // the call's own long arguments (a write's content) age too, whatever happens to its result
    agedFor(engine).offload.registerCall(event);
    const out = offloadToolResult(event, { stateDir: engine.runtime.stateDir, sessionKey: engine.sessionKey }, offloadSettings(engine.runtime.config));
    // not stashed now: a mid-size result is stashed for aging (the context event only swaps it in later)
    const stored = out ? out.receipt : agedFor(engine).offload.register(event);
    // checkpoints may name it (a read of a file the ledger holds), so a restore block can point at it
    const stashes = sessionAt(engine.runtime.stateDir, engine.sessionKey).lasting.stashes;
    const { toolName: tool, input } = event;
    if (stored) addStash(stashes, { handle: stored.handle, tool, input, bytes: stored.bytes });
    engine.log.clear("artifact stash");
    return out?.patch;
  } catch (e) {
    engine.log.fail("artifact stash", e);
    return undefined;
  }
}
