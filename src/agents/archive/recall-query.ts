/** The automatic recall's query (the user's latest requests, less what is in view) and its cap in tokens. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { contentText, userText } from "../messages/read.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { userOrigin } from "../messages/host-provenance.js";
import { stripInjectedBlocks } from "./segments.js";

/** User requests the automatic query is built from (the latest ones). */
export const RECALL_QUERY_REQUESTS = 3;
const RECALL_WINDOW_SHARE = 0.1;

/** The cap of the automatic block: min(recallMaxTokens, 10% of the window). */
export function recallCapTokens(config: Pick<ContextManagerConfig, "recallMaxTokens">, contextWindow: number): number {
  const share = contextWindow > 0 ? Math.floor(contextWindow * RECALL_WINDOW_SHARE) : config.recallMaxTokens;
  return Math.max(0, Math.min(config.recallMaxTokens, share));
}

/** The latest RECALL_QUERY_REQUESTS user requests (latest first), their indexes, and the latest one's (-1: none). */
export function recallQueryOf(messages: readonly AgentMessage[], pending = ""): { query: string; requestAt: Set<number>; lastUser: number } {
  // a request the host keeps out of `messages` until the reply (OpenClaw 2026.9's fenced turn) comes first
  const requests: string[] = pending ? [pending.slice(0, 2000)] : [];
  const requestAt = new Set<number>();
  for (let i = messages.length - 1; i > 0 && requests.length < RECALL_QUERY_REQUESTS; i--) {
    const text = requestTextOf(messages[i]!);
    if (!text) continue;
    requests.push(text);
    requestAt.add(i);
  }
  return { query: requests.join("\n"), requestAt, lastUser: requestAt.values().next().value ?? -1 };
}

/** What a message adds to the query: a user's own request, host-injected blocks left out, its first 2,000 chars ("": none). */
export function requestTextOf(m: AgentMessage): string {
  // the user's requests only: a heartbeat or another session's message is no query of theirs
  return userOrigin(m) === "user" ? stripInjectedBlocks(userText(m)).trim().slice(0, 2000) : "";
}

/** Chars looked at per message (a 1 MB tool output is not scanned whole). */
const PER_MESSAGE = 64_000;

function textOf(m: AgentMessage): string {
  const x = m as { content?: unknown; summary?: unknown; command?: unknown; output?: unknown };
  const c = x.content;
  const parts: string[] = typeof c === "string" ? [c.slice(0, PER_MESSAGE)] : [];
  if (Array.isArray(c)) parts.push(contentText(c, PER_MESSAGE));
  for (const b of Array.isArray(c) ? (c as Array<Record<string, unknown>>) : []) {
    if (b?.type !== "toolCall") continue;
    try {
      parts.push(JSON.stringify(b.arguments ?? {}).slice(0, PER_MESSAGE));
    } catch {
      // unserializable arguments: nothing visible from them
    }
  }
  for (const v of [x.summary, x.command, x.output]) if (typeof v === "string") parts.push(v.slice(0, PER_MESSAGE));
  return parts.join("\n");
}

/** Lower-cased text of `messages` but the query's requests (`skip`): query terms the agent sees anyway are left
 * out, so a request naming only things in view gets no block. */
export function visibleText(messages: readonly AgentMessage[], skip: ReadonlySet<number>): string {
  const out: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (skip.has(i)) continue;
    try {
      out.push(textOf(messages[i]!));
    } catch {
      // a hostile message shape: counts as nothing visible
    }
  }
  return out.join("\n").toLowerCase();
}
