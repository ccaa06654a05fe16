/**
 * What the plugin remembers of a session key between engine instances and processes (2026.9 builds
 * an engine per turn): `<key dir>/openclaw-session.json`, atomic, not fsynced (a lost write only
 * repeats a restore or a catch-up checkpoint); an unreadable file reads as a fresh one.
 */
import { createHash } from "node:crypto";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import path from "node:path";
import { stateSessionDir } from "../infra/session-dir.js";
import { ensurePrivateDir, writeFileAtomic } from "../infra/atomic-file.js";
import { readTextCapped } from "../infra/regular-file.js";
import { errorCode, nodeFsOps } from "../infra/fs-ops.js";

export const SESSION_FILE = "openclaw-session.json";
const MAX_KEYS = 256;
const MAX_KEY_CHARS = 200;
const MAX_IDS = 8;
/** What write() can produce is well under this (256 keys of ≤ 200 chars); anything larger, a FIFO or /dev/zero is not read. */
const SESSION_FILE_MAX_BYTES = 1024 * 1024;

export interface PluginSessionData {
  /** advancement keys of the committed turns (commitTurn answers "duplicate" for a host retry), newest last */
  keys: string[];
  /** the model's window as the host gave it with a turn (2026.9's assemble gets only the prompt budget) */
  window: number | null;
  summaries: SummaryWatch;
  /** compactions of this session so far (checkpoint `meta.compaction_count`) */
  compactions: number;
  /** the gauge's last reading (compact() gets no messages and often no token count) */
  tokens: number;
  /** session ids whose compaction checkpoint the next turn owes as its restore (a finished turn clears it) */
  restoreFor: string[];
}

/** A host key as stored: bounded (a longer one by its hash). */
function storedKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
}

function parse(text: string): PluginSessionData {
  const d = JSON.parse(text) as Record<string, unknown>;
  const s = (d.summaries ?? {}) as Record<string, unknown>;
  const seen = typeof s.seen === "string" ? s.seen.slice(0, MAX_KEY_CHARS) : s.seen === null ? null : undefined;
  return {
    keys: Array.isArray(d.keys) ? d.keys.filter((k): k is string => typeof k === "string").slice(-MAX_KEYS) : [],
    window: typeof d.window === "number" && Number.isSafeInteger(d.window) && d.window > 0 ? d.window : null,
    summaries: { seen, ownCompaction: s.ownCompaction === true },
    compactions: typeof d.compactions === "number" && Number.isSafeInteger(d.compactions) && d.compactions > 0 ? d.compactions : 0,
    tokens: typeof d.tokens === "number" && Number.isSafeInteger(d.tokens) && d.tokens > 0 ? d.tokens : 0,
    restoreFor: Array.isArray(d.restoreFor) ? d.restoreFor.filter((k): k is string => typeof k === "string").slice(-MAX_IDS).map((k) => k.slice(0, MAX_KEY_CHARS)) : [],
  };
}

export const freshSessionData = (): PluginSessionData => ({ keys: [], window: null, summaries: { seen: undefined, ownCompaction: false }, compactions: 0, tokens: 0, restoreFor: [] });

export class PluginSessionFile {
  private readonly file: string;

  constructor(stateDir: string, sessionKey: string) {
    this.file = path.join(stateSessionDir(stateDir, sessionKey), SESSION_FILE);
  }

  async read(): Promise<PluginSessionData> {
    try {
      return parse(await readTextCapped(nodeFsOps, this.file, SESSION_FILE_MAX_BYTES));
    } catch {
      return freshSessionData();
    }
  }

  async write(data: PluginSessionData): Promise<void> {
    // a watch that never saw a history stays unset: JSON drops `seen: undefined` (null: saw one without a summary)
    const text = `${JSON.stringify({ ...data, keys: data.keys.slice(-MAX_KEYS) })}\n`;
    // the directory is made when the write finds it missing: two fewer fs calls per turn
    try {
      await writeFileAtomic(this.file, text, { durable: false });
    } catch (err) {
      if (errorCode(err) !== "ENOENT") throw err;
      await ensurePrivateDir(path.dirname(this.file));
      await writeFileAtomic(this.file, text, { durable: false });
    }
  }
}

export const hasCommitted = (data: PluginSessionData, key: string): boolean => data.keys.includes(storedKey(key));

export function addCommitted(data: PluginSessionData, key: string): void {
  const k = storedKey(key);
  if (!data.keys.includes(k)) data.keys = [...data.keys, k].slice(-MAX_KEYS);
}

// the runtime's own compactions (docs/openclaw-integration.md §6), seen by the summary a history starts with
export const CONVERSATION = new Set(["user", "assistant", "toolResult"]);

/** role@timestamp: a message's mark (a compaction view's cut, a compaction hint's stamps). */
export function markOf(m: unknown): string {
  const x = m as { role?: unknown; timestamp?: unknown } | undefined;
  return `${String(x?.role)}@${String(x?.timestamp)}`;
}
/** how far into the prelude a summary is looked for (pi puts it first; OpenClaw keeps it there) */
const PRELUDE_MAX = 8;

/** The compaction summary in the prelude a history starts with, as an identity; null when none. */
export function summaryKeyOf(messages: readonly AgentMessage[]): string | null {
  for (let i = 0; i < Math.min(messages.length, PRELUDE_MAX); i++) {
    const m = messages[i] as { role?: unknown; timestamp?: unknown; summary?: unknown } | undefined;
    if (CONVERSATION.has(String(m?.role))) return null;
    if (m?.role !== "compactionSummary") continue; // a branch summary, a host's custom message
    const summary = typeof m.summary === "string" ? m.summary : "";
    // an identity only, and it is kept on disk (openclaw-session.json): a hash, never summary text
    return createHash("sha256").update(`${String(m.timestamp)}\u0000${summary.length}\u0000${summary.slice(0, 256)}`).digest("hex").slice(0, 32);
  }
  return null;
}

export interface SummaryWatch {
  /** the summary key of the last history seen; undefined before the first one */
  seen: string | null | undefined;
  /** compact() ran and the runtime compacted: the next history seen carries that summary */
  ownCompaction: boolean;
}

/**
 * True when `messages` starts with a summary the watch has not seen: the runtime compacted by itself
 * (`ownsCompaction: false`). The first history a watch sees, and the first after our compact(), only set it.
 */
export function newRuntimeCompaction(watch: SummaryWatch, messages: readonly AgentMessage[]): boolean {
  const key = summaryKeyOf(messages);
  if (watch.seen === undefined || watch.ownCompaction) {
    watch.seen = key;
    watch.ownCompaction = false;
    return false;
  }
  if (key === null || key === watch.seen) return false;
  watch.seen = key;
  return true;
}
