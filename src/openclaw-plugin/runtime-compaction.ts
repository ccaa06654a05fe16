/**
 * Seeing a compaction the runtime ran without calling the engine (OpenClaw's in-attempt
 * auto-compaction with `ownsCompaction: false`, docs/openclaw-integration.md §6): the history
 * the plugin receives then starts with a compaction summary it has not seen before. The plugin
 * writes the compaction checkpoint and archives the history it saw last, after the fact, and
 * sends the post-compaction restore with the next model request.
 */
import { createHash } from "node:crypto";
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const CONVERSATION = new Set(["user", "assistant", "toolResult"]);
/** how far into the prelude a summary is looked for (pi puts it first; OpenClaw keeps it there) */
const PRELUDE_MAX = 8;

/** The compaction summary in the prelude a history starts with, as an identity; null when none. */
export function summaryKeyOf(messages: readonly AgentMessage[]): string | null {
  for (let i = 0; i < Math.min(messages.length, PRELUDE_MAX); i++) {
    const m = messages[i] as { role?: unknown; timestamp?: unknown; summary?: unknown } | undefined;
    if (CONVERSATION.has(String(m?.role))) return null;
    if (m?.role !== "compactionSummary") continue; // a branch summary, a host's custom message
    const summary = typeof m.summary === "string" ? m.summary : "";
    // an identity only, and it is kept on disk (openclaw-session.json): a hash, never summary text
    return createHash("sha256").update(`${String(m.timestamp)}\u0000${summary.length}\u0000${summary.slice(0, 256)}`).digest("hex").slice(0, 32);
  }
  return null;
}

export interface SummaryWatch {
  /** the summary key of the last history seen; undefined before the first one */
  seen: string | null | undefined;
  /** compact() ran and the runtime compacted: the next history seen carries that summary */
  ownCompaction: boolean;
}

/**
 * True when `messages` starts with a summary the watch has not seen: a compaction ran inside the
 * runtime since the last look. The first history a watch sees (a new session, a restarted
 * gateway) and the first one after this engine's own compact() only set what was seen.
 */
export function newRuntimeCompaction(watch: SummaryWatch, messages: readonly AgentMessage[]): boolean {
  const key = summaryKeyOf(messages);
  if (watch.seen === undefined || watch.ownCompaction) {
    watch.seen = key;
    watch.ownCompaction = false;
    return false;
  }
  if (key === null || key === watch.seen) return false;
  watch.seen = key;
  return true;
}
