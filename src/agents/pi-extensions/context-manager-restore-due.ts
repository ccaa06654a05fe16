/**
 * Standalone pi's due restore, read from the session's entries (it holds across processes): after a
 * host-summarized compaction with no restore since, or on a session's first prompt.
 */
import type { SessionEntry } from "@mariozechner/pi-coding-agent";
import type { RestoreKind } from "../engine/restore-block.js";
import { RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { isCheckpointCompactionDetails } from "../engine/compaction.js";

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
    if (e.type === "compaction") return isCheckpointCompactionDetails(e.details) ? null : { kind: "post-compaction", key: e.id };
    if (e.type === "message") sawMessage = true;
  }
  return sawMessage ? null : { kind: "resume", key: "resume" };
}
