/**
 * Writing a checkpoint without a long-lived writer (tests, tools, one-off callers): a fresh
 * CheckpointWriter reads what it needs from disk and writes once. An engine keeps its own
 * writer instead (see writer.ts for the protocol).
 */
import type { CheckpointDraft } from "./schema.js";
import type { CheckpointStoreOptions } from "./options.js";
import { CheckpointWriter, type WriteCheckpointResult } from "./writer.js";

export { CheckpointWriter, DEFAULT_DEDUP_DELTA, isDuplicateAutoCheckpoint, type WriteCheckpointResult } from "./writer.js";

export async function writeCheckpoint(
  opts: CheckpointStoreOptions,
  draft: CheckpointDraft,
  dedup?: { delta: number },
): Promise<WriteCheckpointResult> {
  return new CheckpointWriter(opts, draft.meta.session_key).write(draft, dedup);
}
