/**
 * What this process keeps of the files under a state dir that it reads once and then follows by
 * its own appends (a key's knowledge.jsonl: the records its appends dedup against, the search
 * index over them; a key's artifact refs log) and when it last collected a state dir's artifacts.
 * One object per process (globalSingleton); each store is a field its owner declares (`declare
 * module` augmenting FileStores) and creates on first use, weighed by memory under its share of
 * `cacheMemoryMiB` (engine/cache-budget.ts): an evicted entry is read again from its file. The
 * unit is a file, not a state dir: a gateway serves every key from one state dir, so a state dir
 * as the unit would be held or dropped whole.
 */
import { globalSingleton } from "./global-singleton.js";

export interface FileStores {}

export const fileStores = (): FileStores => globalSingleton("openclaw.contextManager.fileStores", (): FileStores => ({}));
