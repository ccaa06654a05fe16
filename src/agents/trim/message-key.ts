/**
 * A message's identity across requests. pi hands the `context` event a structuredClone of the
 * history each time, so object identity is useless; the content is not stable either (aged
 * offload swaps a result for its preview). Role, time and tool call id are: pi stamps a message
 * once and appends; OpenClaw's transcript keeps them. O(1) per message (no text is read).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

type Block = { type?: unknown; id?: unknown };

/** First tool call id of an assistant message ("" when none). */
export function firstCallId(m: AgentMessage): string {
  const content = (m as { content?: unknown }).content;
  if (!Array.isArray(content)) return "";
  for (const b of content as Block[]) if (b && b.type === "toolCall" && typeof b.id === "string") return b.id;
  return "";
}

/** Tool call ids of an assistant message, in order. */
export function callIdsOf(m: AgentMessage): string[] {
  const content = (m as { content?: unknown }).content;
  if (m?.role !== "assistant" || !Array.isArray(content)) return [];
  const out: string[] = [];
  for (const b of content as Block[]) if (b && b.type === "toolCall" && typeof b.id === "string") out.push(b.id);
  return out;
}

/** "role|time|id" (id: the tool call id of a result, the first call id of an assistant message). */
export function baseKeyOf(m: AgentMessage): string {
  if (!m || typeof m !== "object") return "?";
  const t = (m as { timestamp?: unknown }).timestamp;
  const time = typeof t === "number" && Number.isFinite(t) ? t : -1;
  const role = String(m.role);
  let id = "";
  if (m.role === "toolResult") id = String((m as { toolCallId?: unknown }).toolCallId ?? "");
  else if (m.role === "assistant") id = firstCallId(m);
  else if (m.role === "custom") id = String((m as { customType?: unknown }).customType ?? "");
  return `${role}|${time}|${id}`;
}

/** Keys of `messages`, a repeated base key numbered by occurrence ("…#2"), so every key is unique. */
export function keysOf(messages: readonly AgentMessage[]): string[] {
  const seen = new Map<string, number>();
  const out = new Array<string>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const base = baseKeyOf(messages[i]!);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out[i] = n === 1 ? base : `${base}#${n}`;
  }
  return out;
}
