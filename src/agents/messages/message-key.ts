/**
 * A message's identity across requests (each gets a structuredClone, aged offload changes content):
 * role, time and tool call id. Smart trim's "role|time|id" (keysOf) and the NUL-joined `messageKey`.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

type Block = { type?: unknown; id?: unknown };

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
  else if (m.role === "assistant") id = callIdsOf(m)[0] ?? "";
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

/** A swapped message's identity: a result's call id as it is, a reply's call ids after a NUL. */
export function agedKey(m: AgentMessage): string | null {
  const o = m as { role?: string; toolCallId?: unknown };
  if (o.role === "toolResult" && typeof o.toolCallId === "string") return o.toolCallId;
  const ids = callIdsOf(m);
  return ids.length > 0 ? `\u0000${ids.join(",")}` : null;
}

/** Role, timestamp and what tells apart messages of one instant (parallel results, a reply's calls). */
export function messageKey(m: AgentMessage | undefined): string | null {
  const o = m as { role?: unknown; timestamp?: unknown; toolCallId?: unknown; customType?: unknown } | undefined;
  if (!o || typeof o.role !== "string" || typeof o.timestamp !== "number") return null;
  const extra = typeof o.toolCallId === "string" ? o.toolCallId : typeof o.customType === "string" ? o.customType : (agedKey(m!) ?? "");
  return `${o.role}\u0000${o.timestamp}\u0000${extra}`;
}
