/** Frame of the recalled-context block (its own file: the segment extractor strips it, the renderer emits it). */
export const RECALL_HEADER = "[Recalled from the archive of compacted context]";
export const RECALL_END = "[End of recalled context]";
