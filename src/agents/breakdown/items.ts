/** One of a breakdown's five largest items described: role, tool, target (a safe gist), tokens, handle. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { BreakdownItem } from "../checkpoint/schema.js";
import { HANDLE_IN_TEXT_RE } from "../artifacts/handle.js";
import { safeGist } from "../text/safe-gist.js";
import { toolCallChars } from "../messages/argument-chars.js";
import { contentText } from "../messages/read.js";
import { messageKey } from "../messages/message-key.js";

export interface ItemAt {
  index: number;
  chars: number;
  /** measured by the last reply's usage (scaled) rather than estimated */
  inPrefix: boolean;
  /** the message is aged offload's swap */
  aged: boolean;
}

type Block = { type?: string; id?: unknown; name?: unknown; arguments?: unknown; text?: unknown };
type Msg = { role?: string; content?: unknown; toolName?: unknown; toolCallId?: unknown; customType?: unknown };

const TARGET_CHARS = 80;
const TARGET_KEYS = ["path", "file_path", "command", "pattern", "url", "query"] as const;

export function targetOf(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const o = args as Record<string, unknown>;
  for (const k of TARGET_KEYS) if (typeof o[k] === "string" && o[k]) return safeGist(o[k] as string, TARGET_CHARS);
  return "";
}

function firstHandle(text: string): string | null {
  HANDLE_IN_TEXT_RE.lastIndex = 0;
  const m = HANDLE_IN_TEXT_RE.exec(text);
  return m ? m[0] : null;
}

function callOf(messages: readonly AgentMessage[], from: number, id: string): Block | undefined {
  for (let i = from - 1; i >= 0; i--) {
    const m = messages[i] as Msg;
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content as Block[]) if (b?.type === "toolCall" && b.id === id) return b;
  }
  return undefined;
}

/** Descriptions by message (a redacted gist, a text scan): the largest items change little. */
type Described = Omit<BreakdownItem, "tokens" | "handle"> & { handle: string | null; resultId: string };
const described = new Map<string, Described>();
const DESCRIBED_MAX = 256;

/** Remembered by message key and size; a handle not in the text is asked of `handleOf` every time. */
export function describeItem(
  messages: readonly AgentMessage[],
  at: ItemAt,
  handleOf: ((toolCallId: string) => string | null) | undefined,
  scale: number,
): BreakdownItem {
  const key = messageKey(messages[at.index]);
  const tokens = Math.round((at.chars / 4) * scale);
  const k = key === null ? null : `${key}\u0000${at.chars}\u0000${at.aged ? 1 : 0}`;
  const known = k === null ? undefined : described.get(k);
  if (known) {
    const handle = known.handle ?? (known.resultId && handleOf ? handleOf(known.resultId) : null);
    return { role: known.role, tool: known.tool, target: known.target, tokens, handle };
  }
  const item = describeFresh(messages, at, scale);
  const m = messages[at.index] as Msg;
  const resultId = m.role === "toolResult" && typeof m.toolCallId === "string" ? m.toolCallId : "";
  if (k !== null) {
    if (described.size >= DESCRIBED_MAX) described.clear();
    described.set(k, { role: item.role, tool: item.tool, target: item.target, handle: item.handle, resultId });
  }
  return item.handle === null && resultId && handleOf ? { ...item, handle: handleOf(resultId) } : item;
}

function describeFresh(messages: readonly AgentMessage[], at: ItemAt, scale: number): BreakdownItem {
  const m = messages[at.index] as Msg;
  const tokens = Math.round((at.chars / 4) * scale);
  const role = typeof m.role === "string" ? m.role : "unknown";
  if (m.role === "toolResult") {
    const id = typeof m.toolCallId === "string" ? m.toolCallId : "";
    const call = id ? callOf(messages, at.index, id) : undefined;
    const handle = firstHandle(contentText(m.content, 4096));
    return { role, tool: typeof m.toolName === "string" ? m.toolName : null, target: targetOf(call?.arguments), tokens, handle };
  }
  if (m.role === "assistant" && Array.isArray(m.content)) {
    let best: Block | undefined;
    let bestChars = -1;
    for (const b of m.content as Block[]) {
      if (b?.type !== "toolCall") continue;
      const chars = toolCallChars(b);
      if (chars > bestChars) [best, bestChars] = [b, chars];
    }
    if (!best) return { role, tool: null, target: "", tokens, handle: null };
    const handle = at.aged ? firstHandle(JSON.stringify(best.arguments ?? {})) : null;
    return { role, tool: typeof best.name === "string" ? best.name : null, target: targetOf(best.arguments), tokens, handle };
  }
  if (m.role === "custom") return { role, tool: null, target: typeof m.customType === "string" ? safeGist(m.customType, 40) : "", tokens, handle: null };
  if (m.role === "user") return { role, tool: null, target: safeGist(contentText(m.content, 2000), 60), tokens, handle: null };
  return { role, tool: null, target: "", tokens, handle: null };
}
