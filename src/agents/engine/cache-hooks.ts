/**
 * The prompt-cache policy around one request (src/agents/cache/): its rules, whether the cache is
 * cold, the gate aging passes through, the gauge lines placed. `none`: no step runs.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AgingGate } from "../artifacts/aged-offload.js";
import { messageKey } from "../messages/message-key.js";
import { livedTime } from "../../infra/lived-clock.js";
import { agingAgeUnder, cacheRulesFor, type CacheRules, type HostModel } from "../cache/cache-rules.js";
import type { CacheSession } from "../cache/cache-session.js";
import { sessionAt } from "./cache-budget.js";
import { reserveTokensOf } from "./runtime.js";
import { gaugeStep, withAnchoredGauge } from "../cache/gauge-anchors.js";
import { agingGate, type ColdReason, coldReason } from "../cache/swap-policy.js";
import type { ContextManagerEngine } from "./context-manager-engine.js";
import type { ContextDecision } from "./engine-state.js";

/** What the host tells of a request's cache (both optional). */
export interface RequestCacheHints {
  model?: HostModel;
  /** the system prompt differs from the previous request's (OpenClaw: a restore block came or went) */
  systemPromptChanged?: boolean;
}

export interface RequestCache {
  rules: CacheRules;
  session: CacheSession;
  now: number;
  /** when the request is made, on the messages' clock (what the TTL is judged on) */
  at: number;
  cold: ColdReason | null;
  gate: AgingGate | undefined;
  /** the age aging runs at for this request (assistant turns) */
  ageTurns: number;
  /** messageKey of the host's first message (what the next request's is compared with) */
  firstKey: string | null;
}

/** The request's cache context, or null under `none` (no cache: today's behaviour). Never throws. */
export function beginRequestCache(engine: ContextManagerEngine, messages: readonly AgentMessage[], tokens: number, hints: RequestCacheHints | undefined, promptPending = false): RequestCache | null {
  try {
    const cfg = engine.runtime.config;
    const rules = cacheRulesFor(cfg, hints?.model);
    const session = sessionAt(engine.runtime.stateDir, engine.sessionKey).cache;
    if (rules.family === "none") {
      session.last = { family: "none", cold: null, aging: null, gaugeLines: 0 };
      return null;
    }
    const now = Date.now();
    // a prompt not yet in the messages (OpenClaw's fenced turn) is sent now: the idle gap counts
    const at = livedTime(promptPending ? now : requestTime(messages, now));
    const cold = coldReason(session, rules, messages, at, hints?.systemPromptChanged === true);
    session.last = { family: rules.family, cold, aging: null, gaugeLines: 0 };
    const window = engine.runtime.contextWindowTokens;
    const compactAt = window > 0 ? Math.max(0, window - reserveTokensOf(engine.runtime)) : 0;
    const gate = agingGate({ rules, session, cold, tokens, compactAt, now: at, decided: (d) => (session.last.aging = d) });
    const ageTurns = agingAgeUnder(rules, cfg);
    return { rules, session, now, at, cold, gate, ageTurns, firstKey: messageKey(messages[0]) };
  } catch (e) {
    engine.log.fail("prompt cache", e);
    return null;
  }
}

/** Whether a request made at `at` would find the cache cold, recording nothing (a run start looking ahead). */
export function coldAhead(engine: ContextManagerEngine, messages: readonly AgentMessage[], model: HostModel | undefined, at: number): ColdReason | null {
  const rules = cacheRulesFor(engine.runtime.config, model);
  if (rules.family === "none") return null;
  return coldReason(sessionAt(engine.runtime.stateDir, engine.sessionKey).cache, rules, messages, at, false);
}

/** The messages with the gauge lines placed by the policy (gauge-anchors.ts). */
export function withCacheGauge(rc: RequestCache, messages: AgentMessage[], decision: ContextDecision): AgentMessage[] {
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

