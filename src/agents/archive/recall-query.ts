/**
 * The automatic recall's query and cap: what it searches for (the user's latest requests) and
 * how many tokens its block may take.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { userText } from "../messages/read.js";
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
  let lastUser = -1;
  // a request the host keeps out of `messages` until the reply (OpenClaw 2026.9's fenced turn) comes first
  const requests: string[] = pending ? [pending.slice(0, 2000)] : [];
  const requestAt = new Set<number>();
  for (let i = messages.length - 1; i > 0 && requests.length < RECALL_QUERY_REQUESTS; i--) {
    const m = messages[i]!;
    const text = requestTextOf(m);
    if (!text) continue;
    if (lastUser < 0) lastUser = i;
    requests.push(text);
    requestAt.add(i);
  }
  return { query: requests.join("\n"), requestAt, lastUser };
}

/** What a message adds to the query: a user's own request, host-injected blocks left out, its first 2,000 chars ("": none). */
export function requestTextOf(m: AgentMessage): string {
  // the user's requests only: a heartbeat or another session's message is no query of theirs
  return userOrigin(m) === "user" ? stripInjectedBlocks(userText(m)).trim().slice(0, 2000) : "";
}
