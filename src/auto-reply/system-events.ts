/**
 * HOST STAND-IN for OpenClaw core's system events (openclaw@2026.9.6 `src/infra/system-events.ts`,
 * its owner scoping and `System:` formatting): a queue per agent-qualified key (a bare key
 * throws); trimmed, empty ignored, a repeat of the last dropped, `replace` per contextKey, at most
 * 20; a drain returns and clears. Not modelled: delivery contexts, store ownership, heartbeats.
 */
import { processServices } from "../infra/process-services.js";

export interface SystemEvent {
  text: string;
  /** enqueue time, ms since epoch (real field name) */
  ts: number;
  contextKey: string | null;
}

export interface SystemEventOptions {
  sessionKey: string;
  contextKey?: string | null;
  /** replace the queued event of the same contextKey instead of appending */
  replace?: boolean;
}

export const MAX_SYSTEM_EVENTS_PER_SESSION = 20;

// the queued events by owner-scoped session key
declare module "../infra/process-services.js" {
  interface ProcessServices { systemEvents?: Map<string, SystemEvent[]> }
}

const queues = (): Map<string, SystemEvent[]> => (processServices().systemEvents ??= new Map());

const AGENT_KEY = /^agent:([^:]+):(.+)$/i;
const DEFAULT_AGENT_ID = "main";

/** `agent:<id>:<rest>` with a lower-cased id, or throws (core's requireSessionKey). */
function requireSessionKey(sessionKey: string): string {
  const m = AGENT_KEY.exec(typeof sessionKey === "string" ? sessionKey.trim() : "");
  if (!m) throw new Error("system events require an agent-qualified sessionKey");
  return `agent:${m[1]!.toLowerCase()}:${m[2]}`;
}

/** The queue a session key's events live in, scoped to its owning agent. */
export function resolveSystemEventQueueKey(sessionKey: string, agentId?: string | null): string {
  if (!sessionKey.trim()) throw new Error("system events require a sessionKey");
  const m = AGENT_KEY.exec(sessionKey.trim());
  const owner = (m ? m[1]! : (agentId ?? DEFAULT_AGENT_ID)).toLowerCase();
  if (agentId && owner !== agentId.toLowerCase()) throw new Error("System event owner does not match its session key.");
  return m ? `agent:${owner}:${m[2]}` : `agent:${owner}:${sessionKey.trim()}`;
}

/** Options with the session key rewritten to its owner-scoped queue key (how core enqueues). */
export function withSystemEventOwner<T extends { sessionKey: string }>(options: T, agentId?: string | null): T {
  return { ...options, sessionKey: resolveSystemEventQueueKey(options.sessionKey, agentId) };
}

export function enqueueSystemEvent(text: string, opts: SystemEventOptions): boolean {
  const key = requireSessionKey(opts.sessionKey);
  const trimmed = typeof text === "string" ? text.trim() : "";
  if (!trimmed) return false;
  const contextKey = opts.contextKey?.trim().toLowerCase() || null;
  const all = queues();
  let queue = all.get(key) ?? [];
  if (opts.replace) {
    if (contextKey === null) throw new Error("replaced system events require a contextKey");
    const same = queue.filter((e) => e.contextKey === contextKey);
    if (same.length === 1 && same[0]!.text === trimmed) return false;
    queue = queue.filter((e) => e.contextKey !== contextKey);
  } else {
    const last = queue[queue.length - 1];
    if (last && last.text === trimmed && last.contextKey === contextKey) return false;
  }
  queue.push({ text: trimmed, ts: Date.now(), contextKey });
  while (queue.length > MAX_SYSTEM_EVENTS_PER_SESSION) queue.shift();
  all.set(key, queue);
  return true;
}

export function drainSystemEventEntries(sessionKey: string): SystemEvent[] {
  const key = requireSessionKey(sessionKey);
  const all = queues();
  const queue = all.get(key) ?? [];
  all.delete(key);
  return queue;
}

export function peekSystemEvents(sessionKey: string): string[] {
  return (queues().get(requireSessionKey(sessionKey)) ?? []).map((e) => e.text);
}

/** Test helper: forget every queue. */
export function resetSystemEventsForTest(): void {
  queues().clear();
}

/** `2026-09-30T12:00:00Z`: core prints the enqueue time before an event's first line. */
function timestampOf(ts: number): string {
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? "unknown-time" : `${date.toISOString().slice(0, 19)}Z`;
}

/** Prepends events to a user message as OpenClaw does: `System: [ts] line`, a blank line, the text. */
export function prependSystemEvents(events: ReadonlyArray<string | SystemEvent>, userText: string): string {
  if (events.length === 0) return userText;
  const lines: string[] = [];
  for (const event of events) {
    const text = typeof event === "string" ? event : event.text;
    const stamp = typeof event === "string" ? "" : `[${timestampOf(event.ts)}] `;
    text.split(/\r\n|\r|\n|\u2028|\u2029/).forEach((line, i) => {
      const body = i === 0 ? `${stamp}${line}` : line;
      lines.push(body ? `System: ${body}` : "System:");
    });
  }
  return `${lines.join("\n")}\n\n${userText}`;
}
