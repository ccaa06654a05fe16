/**
 * Files this process reads once, then follows by its own appends (knowledge.jsonl, artifact refs): a
 * field per store, declared by its owner (`declare module`).
 */
import { globalSingleton } from "./global-singleton.js";

export interface FileStores {}

export const fileStores = (): FileStores => globalSingleton("openclaw.contextManager.fileStores", (): FileStores => ({}));
