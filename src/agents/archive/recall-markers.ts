/** Frame of the recalled-context block (its own file: the segment extractor strips it, the renderer emits it). */
export const RECALL_HEADER = '<recalled-context source="context-manager">';
export const RECALL_END = "</recalled-context>";
/** the frame before the knowledge layer (issue 26): still stripped from older transcripts */
export const LEGACY_RECALL_HEADER = "[Recalled from the archive of compacted context]";
export const LEGACY_RECALL_END = "[End of recalled context]";
