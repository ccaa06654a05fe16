/**
 * The checkpoint of a session's latest compaction, so the restore sends THAT checkpoint or nothing
 * (never an older one that misses the compacted span). Kept per key by engine/compaction.ts.
 */
export interface CompactionOutcome {
  /** the checkpoint written for the compaction, or null when writing it failed */
  checkpointId: string | null;
  /** Date.now() when the hook finished */
  at: number;
  /** a missing block was already logged for this run of failures (one line, not one per compaction) */
  reported: boolean;
  /** the checkpoint was rendered as the compaction summary itself (issue 25): no restore block follows */
  summarized?: boolean;
}
