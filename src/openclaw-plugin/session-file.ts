/**
 * What the plugin must remember about a session key between engine instances: OpenClaw 2026.9
 * builds a new engine for every logical turn and for a standalone compaction (`openclaw
 * sessions compact`, `/compact`), and a CLI turn (`openclaw agent --local`) is a process of its
 * own, so nothing in memory outlives a turn. One small JSON file per key,
 * `<stateDir>/context/state/<key dir>/openclaw-session.json`, written atomically (not fsynced:
 * losing the last write only repeats a restore or a catch-up checkpoint):
 *
 * - `keys`: advancement keys of the committed turns (durable-turn contract, `commitTurn` answers
 *   "duplicate" for a host retry), newest last, at most MAX_KEYS;
 * - `window`: the model's context window as the host gave it with a committed turn (assemble on
 *   2026.9 gets only the prompt budget, which leaves out the system prompt and the output);
 * - `summaries`: the compaction summary the last history began with, to notice a compaction
 *   the runtime ran by itself, and whether compact() itself ran (runtime-compaction.ts);
 * - `compactions`: compactions of this session so far (checkpoint `meta.compaction_count`);
 * - `tokens`: the gauge's last reading (compact() gets no messages and often no token count);
 * - `restoreFor`: session ids whose compaction checkpoint the next turn is owed as the
 *   post-compaction restore (empty: none; a turn that ends clears it).
 *
 * An unreadable or malformed file reads as a fresh one.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { stateSessionDir } from "../infra/session-dir.js";
import { ensurePrivateDir, writeFileAtomic } from "../infra/atomic-file.js";
import { readTextCapped } from "../infra/capped-read.js";
import { errorCode, nodeFsOps } from "../infra/fs-ops.js";
import type { SummaryWatch } from "./runtime-compaction.js";

export const SESSION_FILE = "openclaw-session.json";
const MAX_KEYS = 256;
const MAX_KEY_CHARS = 200;
const MAX_SUMMARY_KEY_CHARS = 200;
const MAX_IDS = 8;
/** What write() can produce is well under this (256 keys of ≤ 200 chars); anything larger, a FIFO or /dev/zero is not read. */
const SESSION_FILE_MAX_BYTES = 1024 * 1024;

export interface PluginSessionData {
  keys: string[];
  window: number | null;
  summaries: SummaryWatch;
  compactions: number;
  tokens: number;
  restoreFor: string[];
}

/** A host key as stored: bounded (a longer one by its hash). */
function storedKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
}

function parse(text: string): PluginSessionData {
  const d = JSON.parse(text) as Record<string, unknown>;
  const s = (d.summaries ?? {}) as Record<string, unknown>;
  const seen = typeof s.seen === "string" ? s.seen.slice(0, MAX_SUMMARY_KEY_CHARS) : s.seen === null ? null : undefined;
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
    const out = { ...data, keys: data.keys.slice(-MAX_KEYS), summaries: { seen: data.summaries.seen ?? null, ownCompaction: data.summaries.ownCompaction } };
    // a watch that never saw a history stays unset (null would mean "saw one without a summary")
    if (data.summaries.seen === undefined) (out.summaries as { seen?: unknown }).seen = undefined;
    const text = `${JSON.stringify(out)}\n`;
    // the directory is made (private) when the write finds it missing, not before every write:
    // two fewer file-system calls per turn (ContextState.load makes it private for each engine)
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
