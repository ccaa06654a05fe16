/**
 * One model request, host-neutral (pi's `context` event, the plugin's `assemble`): aged outputs
 * swapped first (the gauge reads what is sent), gauge, capture and the 80% checkpoint, superseded
 * blocks dropped, the breakdown's record, smart trim, the automatic recall. A prompt cache's policy
 * (cache-hooks.ts) gates aging and places the gauge lines. Never throws: each step falls back to its input.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type ContextReading, estimateContextTokens, type GaugeReading } from "../gauge/context-gauge.js";
import { withAutoRecall } from "./archive-hooks.js";
import { beginRequestCache, type RequestCacheHints, withCacheGauge } from "./cache-hooks.js";
import { rememberRequest } from "../cache/swap-policy.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";
import { agedMessages } from "./offload-hooks.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import type { RequestHost } from "./request-log.js";
import { smartTrimCatchUp, withSmartTrim } from "./trim-hooks.js";

export interface ModelRequest {
  /** what the host would send */
  messages: AgentMessage[];
  /** the host's own reading of the context (pi's getContextUsage()); absent: estimated */
  usage?: ContextReading;
  /** a prompt the model reads after `messages` (OpenClaw 2026.9's fenced turn): gauged and queried first */
  pendingPrompt?: string;
  /** what the host adds to the messages (system prompt, tools), for the context breakdown; read lazily */
  host?: RequestHost;
  /** the model the request goes to and what changed outside the messages, for the prompt-cache policy */
  cache?: RequestCacheHints;
}

export interface PreparedRequest {
  /** what to send: the input array itself when nothing changed */
  messages: AgentMessage[];
  reading: GaugeReading;
  /** the pending prompt's share of reading.tokens (0: none) */
  pendingTokens: number;
}

export async function prepareRequest(engine: ContextManagerEngine, request: ModelRequest): Promise<PreparedRequest> {
  const pending = request.pendingPrompt;
  const pendingTokens = promptTokens(pending);
  // the prompt-cache policy (null: no cache, the steps run as they always did)
  const cache = beginRequestCache(engine, request.messages, cacheTokens(request, pendingTokens), request.cache, pending !== undefined);
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

/** The request's tokens before aging, as the gauge would read them (the policy's view of the window). */
function cacheTokens(request: ModelRequest, pendingTokens: number): number {
  if (request.usage && request.pendingPrompt === undefined && typeof request.usage.tokens === "number") return request.usage.tokens;
  return estimateContextTokens(request.messages) + pendingTokens;
}

/** Tokens of the pending prompt (0: none). */
function promptTokens(pending: string | undefined): number {
  return pending === undefined ? 0 : estimateContextTokens([{ role: "user", content: pending, timestamp: 0 } as AgentMessage]);
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
