/**
 * A `session_before_compact` event for a compaction pi's own hook never sees (OpenClaw's
 * server-side compaction, the context-engine plugin's `compact()`): only the fields the
 * engine reads, with no summarizer preparation (no split turn, no span, no fileOps: the
 * file lists come from the captured tool calls).
 */
import type { SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";

export function compactionEventWithoutPreparation(
  branchEntries: ReadonlyArray<{ type: string }>,
  tokensBefore: number,
): SessionBeforeCompactEvent {
  return {
    type: "session_before_compact",
    branchEntries,
    preparation: {
      tokensBefore,
      isSplitTurn: false,
      turnPrefixMessages: [],
      messagesToSummarize: [],
      fileOps: { read: new Set<string>(), written: new Set<string>(), edited: new Set<string>() },
    },
  } as unknown as SessionBeforeCompactEvent;
}
