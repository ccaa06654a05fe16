/**
 * The context breakdown checked on a replayed transcript (issue 27): at every chat request, the
 * breakdown of the request the context manager recorded against what the faux model counted of
 * what it was actually sent (chars/4 of its own serialization of system prompt, messages and
 * tool schemas: src/faux/faux-model.ts, not the breakdown's code), and the breakdown's largest
 * items against the largest messages of that request.
 */
import type { Context } from "@mariozechner/pi-ai";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { fauxPromptTokens, messageText } from "../faux/faux-model.js";
import { sessionFor } from "../agents/pi-extensions/context-manager-session.js";
import type { ContextManagerEngine } from "../agents/engine/context-manager-engine.js";

export interface BreakdownReport {
  /** chat requests seen */
  requests: number;
  /** of them, checked: a breakdown of the same request (same message count) was available */
  checked: number;
  /** largest |breakdown total − measured| / measured over the checked requests */
  maxDeviation: number;
  /** the same, requests reconciled with a reply's usage / estimated throughout (after a compaction) */
  maxDeviationSdk: number;
  maxDeviationEstimate: number;
  /** the same two against the request with each tool as a provider gets it (name, description, parameters) */
  maxDeviationSdkProviderTools: number;
  maxDeviationEstimateProviderTools: number;
  /** requests reconciled with a reply's usage (source "sdk"), of the checked */
  sdkRequests: number;
  /** sdk requests over 2% against the faux model's count */
  sdkOver2pct: number;
  /** largest |raw chars/4 estimate − measured| / measured (before reconciliation) */
  maxEstimateDeviation: number;
  /** the request with the largest deviation */
  worst: { request: number; measured: number; total: number; source: string; messages: number } | null;
  /** requests where the largest item is the largest message (role and tool), of those without a near tie */
  topMatches: number;
  topChecked: number;
  /** requests where the five largest items are the five largest messages (roles and tools, any order), of those without a near tie at the fifth */
  top5Matches: number;
  top5Checked: number;
}

/** chars of a provider-side message as the faux provider serializes it */
function providerChars(m: Context["messages"][number]): number {
  if (m.role === "assistant") return m.content.map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : `${b.name}:${JSON.stringify(b.arguments)}`)).join("\n").length;
  return messageText(m as { role: string; content?: unknown }).length;
}

/** role and tool of a provider message, as a breakdown item names it */
function identity(m: Context["messages"][number]): string {
  if (m.role === "toolResult") return `toolResult ${m.toolName}`;
  if (m.role === "assistant") {
    const calls = m.content.filter((b) => b.type === "toolCall");
    if (calls.length === 0) return "assistant";
    const best = calls.reduce((a, b) => (JSON.stringify(b.arguments).length + b.name.length > JSON.stringify(a.arguments).length + a.name.length ? b : a));
    return `assistant ${best.name}`;
  }
  // custom messages reach the provider as user messages
  return "user";
}

/** Two sizes closer than this are a near tie: the order between them is the estimator's noise. */
const NEAR_TIE = 0.02;

export class BreakdownProbe {
  private engine: ContextManagerEngine | null = null;
  private readonly report: BreakdownReport = {
    requests: 0,
    checked: 0,
    maxDeviation: 0,
    maxDeviationSdk: 0,
    maxDeviationEstimate: 0,
    maxDeviationSdkProviderTools: 0,
    maxDeviationEstimateProviderTools: 0,
    sdkRequests: 0,
    sdkOver2pct: 0,
    maxEstimateDeviation: 0,
    worst: null,
    topMatches: 0,
    topChecked: 0,
    top5Matches: 0,
    top5Checked: 0,
  };

  /** Finds the session's engine at each request (OpenClaw's runner makes one per inbound message). */
  extension(): ExtensionFactory {
    return (pi) => {
      pi.on("context", async (_event, ctx) => {
        this.engine = (await sessionFor(ctx))?.engine ?? null;
        return undefined;
      });
    };
  }

  /** At a chat request (the faux responder): the breakdown of the request recorded for it, checked. */
  onChatRequest(context: Context): void {
    this.report.requests++;
    const engine = this.engine;
    const record = engine?.requests.latest;
    if (!engine || !record) return;
    const b = engine.requests.breakdown({ contextWindow: engine.runtime.contextWindowTokens, checkpointThreshold: engine.runtime.config.checkpointThreshold });
    if (!b || b.messages !== context.messages.length) return;
    // what the faux model counts of the request (its usage): pi's whole tool objects serialized
    const measured = fauxPromptTokens(context);
    if (measured <= 0) return;
    const r = this.report;
    r.checked++;
    // a real provider gets name, description and parameters of a tool: the same check on that count
    const tools = context.tools?.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    const providerMeasured = fauxPromptTokens({ ...context, tools });
    const providerDeviation = Math.abs(b.total_tokens - providerMeasured) / providerMeasured;
    if (b.source === "sdk") r.maxDeviationSdkProviderTools = Math.max(r.maxDeviationSdkProviderTools, providerDeviation);
    else r.maxDeviationEstimateProviderTools = Math.max(r.maxDeviationEstimateProviderTools, providerDeviation);
    const deviation = Math.abs(b.total_tokens - measured) / measured;
    if (deviation > r.maxDeviation) r.worst = { request: r.requests, measured, total: b.total_tokens, source: b.source, messages: b.messages };
    r.maxDeviation = Math.max(r.maxDeviation, deviation);
    if (b.source === "sdk") {
      r.maxDeviationSdk = Math.max(r.maxDeviationSdk, deviation);
      r.sdkRequests++;
      if (deviation > 0.02) r.sdkOver2pct++;
    }
    else r.maxDeviationEstimate = Math.max(r.maxDeviationEstimate, deviation);
    r.maxEstimateDeviation = Math.max(r.maxEstimateDeviation, Math.abs(b.estimated_tokens - measured) / measured);

    const sized = context.messages.map((m) => ({ m, chars: providerChars(m) })).sort((x, y) => y.chars - x.chars);
    // what is neither a reply nor a tool result reaches the provider as a user message
    const item = (x: { role: string; tool: string | null }) => (x.role === "assistant" || x.role === "toolResult" ? (x.tool ? `${x.role} ${x.tool}` : x.role) : "user");
    const clear = (k: number) => sized.length <= k || sized[k - 1]!.chars * (1 - NEAR_TIE) > sized[k]!.chars;
    if (b.largest.length > 0 && clear(1)) {
      r.topChecked++;
      if (item(b.largest[0]!) === identity(sized[0]!.m)) r.topMatches++;
    }
    const k = Math.min(5, sized.length);
    if (k > 0 && b.largest.length === k && clear(k)) {
      r.top5Checked++;
      const want = sized.slice(0, k).map((x) => identity(x.m)).sort();
      const got = b.largest.map(item).sort();
      if (want.join("\n") === got.join("\n")) r.top5Matches++;
    }
  }

  result(): BreakdownReport {
    return { ...this.report, worst: this.report.worst && { ...this.report.worst } };
  }
}
