/** When the archive's search index is written to disk again (SessionArchive.saveIndex). */
import type { SearchIndex } from "./search-index.js";

/**
 * The index is saved again once this many records were added since the last save (or this
 * share of its size, if more), or right after records were removed (a saved index naming
 * a record the file no longer has is useless). Serializing a 20k-segment index costs about
 * a second of CPU, so saving it after every compaction would cost more than it saves; a
 * new process indexes the records the saved file lacks (at most ~10%).
 */
const SAVE_MIN_ADDED = 256;
const SAVE_SHARE = 0.1;

/** True when the index has changed enough since its last save to be saved again. */
export function indexWorthSaving(index: Pick<SearchIndex, "removedSinceSave" | "addedSinceSave" | "size">): boolean {
  return index.removedSinceSave > 0 || index.addedSinceSave >= Math.max(SAVE_MIN_ADDED, SAVE_SHARE * index.size);
}
