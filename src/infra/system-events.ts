/**
 * HOST STAND-IN for OpenClaw core `src/infra/system-events.ts`.
 *
 * An in-memory, per-session-key queue of system events with OpenClaw's
 * semantics: text is trimmed, empty text is ignored, an event identical to the
 * previous one is dropped, at most 20 are kept (oldest dropped), and a drain
 * returns and clears. The agent runner prepends drained events to the next
 * inbound user message as `System:` lines.
 */
import { globalSingleton } from "./global-singleton.js";

export interface SystemEvent {
  text: string;
  enqueuedAt: number;
}

export const MAX_SYSTEM_EVENTS_PER_SESSION = 20;

type Queues = Map<string, SystemEvent[]>;

const queues = (): Queues => globalSingleton("openclaw.systemEvents.queues", () => new Map());

export function enqueueSystemEvent(text: string, opts: { sessionKey: string }): boolean {
  const trimmed = typeof text === "string" ? text.trim() : "";
  if (!trimmed) return false;
  const all = queues();
  const queue = all.get(opts.sessionKey) ?? [];
  if (queue.length > 0 && queue[queue.length - 1]!.text === trimmed) return false;
  queue.push({ text: trimmed, enqueuedAt: Date.now() });
  while (queue.length > MAX_SYSTEM_EVENTS_PER_SESSION) queue.shift();
  all.set(opts.sessionKey, queue);
  return true;
}

export function drainSystemEventEntries(sessionKey: string): SystemEvent[] {
  const all = queues();
  const queue = all.get(sessionKey) ?? [];
  all.delete(sessionKey);
  return queue;
}

export function drainSystemEvents(sessionKey: string): string[] {
  return drainSystemEventEntries(sessionKey).map((e) => e.text);
}

export function peekSystemEvents(sessionKey: string): string[] {
  return (queues().get(sessionKey) ?? []).map((e) => e.text);
}

/** Test helper: forget every queue. */
export function resetSystemEventsForTest(): void {
  queues().clear();
}

/**
 * Prepends events to a user message the way OpenClaw does: every line of every
 * event prefixed with `System: `, then a blank line, then the user's text.
 */
export function prependSystemEvents(events: readonly string[], userText: string): string {
  if (events.length === 0) return userText;
  const lines: string[] = [];
  for (const event of events) {
    for (const line of event.split(/\r\n|\r|\n|\u2028|\u2029/)) lines.push(line ? `System: ${line}` : "System:");
  }
  return `${lines.join("\n")}\n\n${userText}`;
}
