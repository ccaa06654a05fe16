/**
 * Which session a compaction provider call is of (the safeguard passes only the messages): the
 * `before_compaction` hint whose messages hold the call's first and last conversation message,
 * else the one recent hint without messages (`openclaw sessions compact`, the overflow retry);
 * two such are ambiguous and none is taken (the wrong session's store is worse than none).
 * Process-wide, at most MAX_HINTS, each used once.
 */
import path from "node:path";
import { processServices } from "../infra/process-services.js";
import { hostSessionKey } from "../infra/session-dir.js";

export interface ProviderSession {
  sessionKey: string;
  sessionId: string;
}

interface Hint extends ProviderSession {
  at: number;
  /** role@timestamp of the messages the hook saw; null: the hook passed none */
  stamps: Set<string> | null;
}

const HINT_TTL_MS = 10 * 60_000;
const MAX_HINTS = 64;
const CONVERSATION = new Set(["user", "assistant", "toolResult"]);

// the compaction hints not used yet, the oldest first (at most MAX_HINTS)
declare module "../infra/process-services.js" {
  interface ProcessServices { providerHints?: Hint[] }
}

const hints = (): Hint[] => (processServices().providerHints ??= []);

function stampOf(m: unknown): string | null {
  const x = m as { role?: unknown; timestamp?: unknown } | null;
  if (!x || typeof x !== "object" || !CONVERSATION.has(String(x.role)) || x.timestamp === undefined) return null;
  return `${String(x.role)}@${String(x.timestamp)}`;
}

/** role@timestamp of each conversation message. */
const stampsOf = (messages: readonly unknown[]): Set<string> => new Set(messages.map(stampOf).filter((s) => s !== null));

/** First and last conversation stamps of the provider's messages (what a matching history must hold). */
function endsOf(messages: readonly unknown[]): string[] {
  let first: string | null = null;
  let last: string | null = null;
  for (let i = 0; i < messages.length && !first; i++) first = stampOf(messages[i]);
  for (let i = messages.length - 1; i >= 0 && !last; i--) last = stampOf(messages[i]);
  return first && last ? [...new Set([first, last])] : [];
}

/** The `before_compaction` hook's event and context (auto-compaction: messages and sessionFile; others: sessionId). */
export function noteCompactionHint(event: unknown, ctx: unknown, now = Date.now()): void {
  const e = (event ?? {}) as { messages?: unknown; sessionFile?: unknown };
  const c = (ctx ?? {}) as { sessionKey?: unknown; sessionId?: unknown };
  const fileId = typeof e.sessionFile === "string" && e.sessionFile ? path.basename(e.sessionFile).replace(/\.jsonl?$/, "") : "";
  const sessionId = typeof c.sessionId === "string" && c.sessionId ? c.sessionId : fileId;
  const sessionKey = hostSessionKey(c.sessionKey)?.trim() || (sessionId ? `openclaw:${sessionId}` : "");
  if (!sessionKey) return;
  const list = hints();
  list.push({ sessionKey, sessionId: sessionId || sessionKey, at: now, stamps: Array.isArray(e.messages) ? stampsOf(e.messages) : null });
  if (list.length > MAX_HINTS) list.splice(0, list.length - MAX_HINTS);
}

/** The session of `messages`, or null when it cannot be told. */
export function identifySession(messages: readonly unknown[], now = Date.now()): ProviderSession | null {
  const list = hints();
  for (let i = list.length - 1; i >= 0; i--) if (now - list[i]!.at > HINT_TTL_MS) list.splice(i, 1);
  const ends = endsOf(messages);
  if (ends.length > 0) {
    for (let i = list.length - 1; i >= 0; i--) {
      const h = list[i]!;
      if (h.stamps && ends.every((s) => h.stamps!.has(s))) {
        list.splice(i, 1);
        return { sessionKey: h.sessionKey, sessionId: h.sessionId };
      }
    }
  }
  const bare = list.filter((h) => h.stamps === null);
  if (bare.length !== 1) return null;
  list.splice(list.indexOf(bare[0]!), 1);
  return { sessionKey: bare[0]!.sessionKey, sessionId: bare[0]!.sessionId };
}

/** Test seam: forget every hint. */
export function clearCompactionHints(): void {
  hints().length = 0;
}
