/** Token gauge (spec §6): how full the window is (the host's reading, else estimated), its action and line. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, Usage } from "@mariozechner/pi-ai";
import { calculateContextTokens, estimateTokens } from "@mariozechner/pi-coding-agent";
import { strictCallChars } from "../messages/argument-chars.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { GAUGE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { formatGaugeLine, type GaugeFigures } from "./gauge-line.js";

/** `utilization` 0..1, may exceed 1 on overflow; 0 when the window is unknown. */
export interface GaugeReading extends GaugeFigures {
  source: "sdk" | "estimate";
}

export type GaugeAction = "none" | "gauge" | "checkpoint";

/** Fixed advisory appended at/above the checkpoint threshold (no claim that the write succeeded). */
export const GAUGE_ADVISORY =
  "Note: the context window is nearly full and compaction may run soon; keep outputs concise and finish the current step.";

/**
 * pi's per-message `estimateTokens`, each call's argument JSON length kept per arguments object:
 * re-stringifying every call was most of a usage-less gauge's time (bench/gateway.ts). `callChars`:
 * the tool calls' chars when the caller knows them (trim/smart-trim.ts TokenMemo, for fresh copies).
 */
export function messageTokens(message: AgentMessage, callChars?: number): number {
  if (message.role !== "assistant") return estimateTokens(message);
  const content = (message as AssistantMessage).content;
  if (!Array.isArray(content)) return estimateTokens(message);
  let chars = callChars ?? 0;
  for (const block of content) {
    if (block?.type === "text") chars += block.text.length;
    else if (block?.type === "thinking") chars += block.thinking.length;
    else if (block?.type === "toolCall" && callChars === undefined) {
      const n = strictCallChars(block);
      if (n === null) return estimateTokens(message);
      chars += n;
    }
  }
  return Math.ceil(chars / 4);
}

/** Usage of an assistant reply that counts (pi skips aborted and error replies the same way). */
function usableUsage(message: AgentMessage): Usage | undefined {
  const a = message as AssistantMessage;
  return a.role === "assistant" && a.stopReason !== "aborted" && a.stopReason !== "error" ? a.usage : undefined;
}

/** Index of the latest reply whose usage counts, or -1; `afterSummary`: newer than the compaction summary. */
export function lastUsableReply(messages: readonly AgentMessage[], afterSummary = true): number {
  const first = messages[0] as { role?: string; timestamp?: unknown } | undefined;
  const cutoff = first?.role === "compactionSummary" && typeof first.timestamp === "number" ? first.timestamp : -Infinity;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (usableUsage(m) && (!afterSummary || ((m as { timestamp?: number }).timestamp ?? -Infinity) > cutoff)) return i;
  }
  return -1;
}

/** pi's calculateContextTokens of a reply lastUsableReply found. */
export const replyTokens = (reply: AgentMessage): number => calculateContextTokens(usableUsage(reply)!);

/** pi's (unexported) estimateContextTokens: the reply at `i`'s usage + chars/4 of what followed (or of all). */
export function estimateContextTokens(messages: readonly AgentMessage[], i = lastUsableReply(messages)): number {
  let tokens = i >= 0 ? replyTokens(messages[i]!) : 0;
  for (let j = i + 1; j < messages.length; j++) tokens += messageTokens(messages[j]!);
  return tokens;
}

/** The latest usage (even before a compaction summary) + chars/4 of what followed; null without usage. */
export function usageTokensOf(messages: readonly AgentMessage[]): number | null {
  const i = lastUsableReply(messages, false);
  return i < 0 ? null : estimateContextTokens(messages, i);
}

/** The host's own reading of the context (pi's `getContextUsage()` has this shape). */
export interface ContextReading {
  /** null: unknown (right after a compaction, before the next reply) */
  tokens: number | null;
  contextWindow: number;
  /** percent of the window, null when the tokens are unknown */
  percent: number | null;
}

export function readGauge(usage: ContextReading | undefined, messages: readonly AgentMessage[], fallbackWindow: number): GaugeReading {
  const contextWindow = usage && usage.contextWindow > 0 ? usage.contextWindow : Math.max(0, fallbackWindow);
  if (usage && usage.tokens != null && usage.percent != null && Number.isFinite(usage.percent)) {
    return { tokens: usage.tokens, contextWindow, utilization: usage.percent / 100, source: "sdk" };
  }
  const tokens = estimateContextTokens(messages);
  return { tokens, contextWindow, utilization: contextWindow > 0 ? tokens / contextWindow : 0, source: "estimate" };
}

export function gaugeAction(r: GaugeReading, cfg: Pick<ContextManagerConfig, "gaugeThreshold" | "checkpointThreshold">): GaugeAction {
  const u = r.utilization;
  return u >= cfg.checkpointThreshold ? "checkpoint" : u >= cfg.gaugeThreshold ? "gauge" : "none";
}

/** "" for none, the line for gauge, line + advisory for checkpoint. */
export function formatGaugeText(r: GaugeReading, action: GaugeAction, checkpointSaved: boolean, composition = ""): string {
  if (action === "none") return "";
  const line = formatGaugeLine(r, checkpointSaved, composition);
  return action === "checkpoint" ? `${line}\n${GAUGE_ADVISORY}` : line;
}

/** Sent as user content, hidden in UIs; goes at the END of the messages. */
export function gaugeMessage(text: string, now: number = Date.now()): AgentMessage {
  return { role: "custom", customType: GAUGE_CUSTOM_TYPE, content: text, display: false, timestamp: now };
}
