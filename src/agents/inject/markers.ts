/** The lines that frame a block; other features recognise a block by them (the archive skips restores). */
export const RESTORE_HEADER_POST_COMPACTION = "[Post-compaction checkpoint restore]";
export const RESTORE_HEADER_RESUME = "[Session resume checkpoint restore]";
export const RESTORE_END_MARKER = "[End of checkpoint restore]";

/** The frame of a checkpoint compaction summary (issue 25): the text that replaced the history. */
export const COMPACTION_SUMMARY_HEADER = "[Compaction summary: context manager checkpoint]";
export const COMPACTION_SUMMARY_END = "[End of compaction summary]";
