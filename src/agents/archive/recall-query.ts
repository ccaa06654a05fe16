/**
 * The automatic recall's query and cap: what it searches for (the user's latest requests) and
 * how many tokens its block may take.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { userText } from "../messages/read.js";
import type { ContextManagerConfig } from "../context-manager-config.js";
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

/**
 * The automatic recall's query: the latest RECALL_QUERY_REQUESTS user requests (latest
 * first), with where they are in `messages` (they are not "visible context") and the
 * index of the latest one (-1: none).
 */
export function recallQueryOf(messages: readonly AgentMessage[], pending = ""): { query: string; requestAt: Set<number>; lastUser: number } {
  let lastUser = -1;
  // a request the host keeps out of `messages` until the reply (OpenClaw 2026.9's fenced turn) comes first
  const requests: string[] = pending ? [pending.slice(0, 2000)] : [];
  const requestAt = new Set<number>();
  for (let i = messages.length - 1; i > 0 && requests.length < RECALL_QUERY_REQUESTS; i--) {
    const m = messages[i]!;
    // the user's requests only: a heartbeat or another session's message is no query of theirs
    const text = userOrigin(m) === "user" ? stripInjectedBlocks(userText(m)).trim() : "";
    if (!text) continue;
    if (lastUser < 0) lastUser = i;
    requests.push(text.slice(0, 2000));
    requestAt.add(i);
  }
  return { query: requests.join("\n"), requestAt, lastUser };
}
