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
  return HANDLE_IN_TEXT_RE.exec(text)?.[0] ?? null;
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
type Described = Pick<BreakdownItem, "role" | "tool" | "target"> & { handle: string | null; resultId: string };
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
  const k = key === null ? null : `${key}\u0000${at.chars}\u0000${at.aged ? 1 : 0}`;
  let d = k === null ? undefined : described.get(k);
  if (!d) {
    d = describeFresh(messages, at);
    if (k !== null && described.size >= DESCRIBED_MAX) described.clear();
    if (k !== null) described.set(k, d);
  }
  const handle = d.handle ?? (d.resultId && handleOf ? handleOf(d.resultId) : null);
  return { role: d.role, tool: d.tool, target: d.target, tokens: Math.round((at.chars / 4) * scale), handle };
}

function describeFresh(messages: readonly AgentMessage[], at: ItemAt): Described {
  const m = messages[at.index] as Msg;
  const role = typeof m.role === "string" ? m.role : "unknown";
  const d: Described = { role, tool: null, target: "", handle: null, resultId: "" };
  if (m.role === "toolResult") {
    d.resultId = typeof m.toolCallId === "string" ? m.toolCallId : "";
    d.tool = typeof m.toolName === "string" ? m.toolName : null;
    d.target = targetOf(d.resultId ? callOf(messages, at.index, d.resultId)?.arguments : undefined);
    d.handle = firstHandle(contentText(m.content, 4096));
  } else if (m.role === "assistant" && Array.isArray(m.content)) {
    // the largest call names the message
    let best: Block | undefined;
    let bestChars = -1;
    for (const b of m.content as Block[]) {
      const chars = b?.type === "toolCall" ? toolCallChars(b) : -1;
      if (chars > bestChars) [best, bestChars] = [b, chars];
    }
    if (best) {
      d.tool = typeof best.name === "string" ? best.name : null;
      d.target = targetOf(best.arguments);
      d.handle = at.aged ? firstHandle(JSON.stringify(best.arguments ?? {})) : null;
    }
  } else if (m.role === "custom") d.target = typeof m.customType === "string" ? safeGist(m.customType, 40) : "";
  else if (m.role === "user") d.target = safeGist(contentText(m.content, 2000), 60);
  return d;
}
