/**
 * Standalone pi delivery rules, decided from the session's own entries so they hold across
 * processes (`pi -p -c`), RPC `new_session` (pi emits session_start twice) and reloads:
 * - after a compaction entry with no restore message after it: the post-compaction block;
 * - on the first prompt of a session with no messages yet: the resume block;
 * - otherwise nothing (one block per compaction and per new session).
 * And what the `context` event sends: only the latest restore block and gauge line (older
 * copies survive in pi's keep-recent window and would contradict the newer one).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { SessionEntry } from "@mariozechner/pi-coding-agent";
import type { RestoreKind } from "../context-checkpoint-restore.js";
import { GAUGE_CUSTOM_TYPE } from "../context-gauge.js";

export const RESTORE_CUSTOM_TYPE = "context-restore";
/** the /context report: shown in pi's UI, never sent to the model */
export const REPORT_CUSTOM_TYPE = "context-report";

export interface DueRestore {
  kind: RestoreKind;
  /** the compaction entry id, or "resume": one attempt per key and process */
  key: string;
}

/** `branch` = sessionManager.getBranch(), root first. Walks back to the last compaction or restore. */
export function restoreDue(branch: readonly SessionEntry[]): DueRestore | null {
  let sawMessage = false;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i]!;
    if (e.type === "custom_message" && e.customType === RESTORE_CUSTOM_TYPE) return null;
    if (e.type === "compaction") return { kind: "post-compaction", key: e.id };
    if (e.type === "message") sawMessage = true;
  }
  return sawMessage ? null : { kind: "resume", key: "resume" };
}

function customTypeOf(m: AgentMessage): string | undefined {
  return m.role === "custom" ? (m as { customType?: string }).customType : undefined;
}

/**
 * Drops every restore block and gauge line but the latest of each, and /context reports.
 * One pass of role checks (no text is read); returns the input array when nothing is dropped.
 */
export function withoutSuperseded(messages: AgentMessage[]): AgentMessage[] {
  let lastRestore = -1;
  let lastGauge = -1;
  let drop = 0;
  for (let i = 0; i < messages.length; i++) {
    const t = customTypeOf(messages[i]!);
    if (t === undefined) continue;
    if (t === RESTORE_CUSTOM_TYPE) {
      if (lastRestore >= 0) drop++;
      lastRestore = i;
    } else if (t === GAUGE_CUSTOM_TYPE) {
      if (lastGauge >= 0) drop++;
      lastGauge = i;
    } else if (t === REPORT_CUSTOM_TYPE) drop++;
  }
  if (drop === 0) return messages;
  return messages.filter((m, i) => {
    const t = customTypeOf(m);
    if (t === RESTORE_CUSTOM_TYPE) return i === lastRestore;
    if (t === GAUGE_CUSTOM_TYPE) return i === lastGauge;
    return t !== REPORT_CUSTOM_TYPE;
  });
}
