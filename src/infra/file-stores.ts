/**
 * What this process keeps of files it reads once and then follows by its own appends (a key's
 * knowledge.jsonl, its artifact refs log): a field per store, declared by its owner (`declare
 * module`), each weighed under its share of `cacheMemoryMiB` per file (a gateway has one state dir).
 */
import { globalSingleton } from "./global-singleton.js";

export interface FileStores {}

export const fileStores = (): FileStores => globalSingleton("openclaw.contextManager.fileStores", (): FileStores => ({}));
