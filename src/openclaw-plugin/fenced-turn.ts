/**
 * OpenClaw 2026.9's fenced turns (`currentTurnFence: "before-current-turn-entry-v1"`): assemble
 * gets the history before the turn and the turn's prompt apart; commitTurn gets the turn alone.
 * Pure helpers that put the two back together for the capture and the request (engine/request.ts).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { userText } from "../agents/messages/read.js";
import { messageIdentity } from "../agents/state/message-cursor.js";

/**
 * The history before the turn (as assemble saw it) followed by the turn, without the part of
 * the turn the history already holds (the cursor would take a repeated message as new).
 */
export function withTurn(before: readonly AgentMessage[], turn: readonly AgentMessage[]): AgentMessage[] {
  if (turn.length === 0) return [...before];
  const first = messageIdentity(turn[0]!);
  let cut = before.length;
  for (let i = before.length - 1; i >= 0 && i >= before.length - turn.length; i--) if (messageIdentity(before[i]!) === first) cut = i;
  return [...before.slice(0, cut), ...turn];
}

/**
 * The turn's prompt when the history is fenced before it (OpenClaw 2026.9's durable turns): the
 * model reads it after `messages`, so the gauge counts it and the automatic recall queries it.
 * Undefined when there is no prompt or the history already ends with it.
 */
export function pendingPromptOf(messages: readonly AgentMessage[], prompt: string | undefined): string | undefined {
  if (typeof prompt !== "string" || !prompt.trim()) return undefined;
  for (let i = messages.length - 1; i >= 0 && i >= messages.length - 4; i--) {
    if (messages[i]?.role === "user" && userText(messages[i]!) === prompt.trim()) return undefined;
  }
  return prompt;
}
