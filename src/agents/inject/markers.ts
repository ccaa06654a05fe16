/**
 * The fixed lines that frame a restore block. Other features recognise a block by them (the
 * archive skips restore blocks it meets in a transcript), so they live apart from the renderer.
 */
export const RESTORE_HEADER_POST_COMPACTION = "[Post-compaction checkpoint restore]";
export const RESTORE_HEADER_RESUME = "[Session resume checkpoint restore]";
export const RESTORE_END_MARKER = "[End of checkpoint restore]";

/** The frame of a checkpoint compaction summary (issue 25): the text that replaced the history. */
export const COMPACTION_SUMMARY_HEADER = "[Compaction summary: context manager checkpoint]";
export const COMPACTION_SUMMARY_END = "[End of compaction summary]";
