/**
 * Previous sessions' state that was never checkpointed (spec §7.3, §10.1, §12): held, bundled into
 * a `session-end` checkpoint of that session, deleted once it is durable. Never throws.
 */
import { buildCheckpointDraft } from "../state/checkpoint-build.js";
import { type Checkpoint } from "../checkpoint/schema.js";
import { CheckpointWriter } from "../checkpoint/writer.js";
import { readLatestCheckpoint } from "../checkpoint/files.js";
import type { ContextManagerConfig } from "../config/context-manager-config.js";
import { ContextState } from "../state/context-state.js";
import { type ContextStateSnapshot } from "../state/captured-state.js";
import { consoleWarnLogger, type WarnLogger, warnSafely } from "../../infra/log-once.js";
import { debugLog } from "../../infra/debug-log.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { acquireBundleLock, holdPreviousSessionFiles, readHeldSessions, releaseHeld } from "../state/previous-session.js";
import { STATE_FILE_NAMES, judgeStateFile, readStateEnvelope, stateFilePath, type StateFileName, type StateFileRead } from "../state/state-files.js";
import { sessionAt } from "./cache-budget.js";
import { queued } from "./session.js";
import { type FsOps, nodeFsOps } from "../../infra/fs-ops.js";

export interface RecoverParams {
  stateDir: string;
  /** the stored (canonical) key */
  sessionKey: string;
  /** the session now starting */
  sessionId: string | null;
  config: ContextManagerConfig;
  fs?: FsOps;
  logger?: WarnLogger;
  /** the key's latest checkpoint when the caller has just read it (saves a second read and parse) */
  latest?: Checkpoint | null;
}

export interface RecoverResult {
  /** checkpoints written, oldest first */
  written: Checkpoint[];
  /** held sessions that added nothing to their latest checkpoint (released) */
  covered: number;
  /** held sessions left held because their checkpoint could not be written */
  failed: number;
  /** The key's state files as read by a check that found nothing to hold: the state load judges these. */
  stateFiles?: ReadonlyMap<StateFileName, StateFileRead>;
}

/** Where a key's recovery reads and writes, and where it reports. */
function placeOf(p: RecoverParams) {
  const log = p.logger ?? consoleWarnLogger;
  const fs = p.fs ?? nodeFsOps;
  const dir = stateSessionDir(p.stateDir, p.sessionKey);
  const store = { stateDir: p.stateDir, retention: p.config.retention, fs: p.fs };
  const debug = (m: string) => warnSafely({ warn: log.debug ?? ((x: string) => debugLog(x)) }, m);
  return { log, fs, dir, store, debug, warn: (m: string) => warnSafely(log, m) };
}

type Place = ReturnType<typeof placeOf>;

/** One recovery per key at a time in this process (the engine and the host seam may both ask). */
export function recoverPreviousSessions(p: RecoverParams): Promise<RecoverResult> {
  return queued(sessionAt(p.stateDir, p.sessionKey).lasting.running, "recovery", () => recoverNow(p));
}

async function recoverNow(p: RecoverParams): Promise<RecoverResult> {
  const result: RecoverResult = { written: [], covered: 0, failed: 0 };
  const at = placeOf(p);
  const { fs, dir, debug } = at;
  try {
    // null: no state directory (or unreadable: ContextState.load reports it)
    const entries = await fs.readdir(dir).catch(() => null);
    if (!entries?.some((e) => STATE_FILE_NAMES.some((n) => e === `${n}.json`) || e.startsWith("previous."))) return result;
    // the usual reopen of a session, judged without the lock: the state load then takes the same reads
    const own = await onlyOwnFiles(p, at, entries);
    if (own) return { ...result, stateFiles: own };
    // one bundler per key across processes (state/previous-session.ts)
    const lock = await acquireBundleLock(fs, dir);
    if (lock.kind === "busy") {
      debug(`[context-manager] previous-session state not bundled now: ${lock.holder} is bundling this key`);
      return result;
    }
    if (lock.kind === "unlocked") debug(`[context-manager] previous-session bundling without the lock (${lock.reason})`);
    try {
      // another process bundled while this one waited: the caller's latest checkpoint is older than that
      await bundleHeld(lock.kind === "held" && lock.waited ? { ...p, latest: undefined } : p, at, result);
    } finally {
      if (lock.kind === "held") await lock.release();
    }
  } catch (err) {
    at.warn(`[context-manager] previous-session recovery failed (${String(err)}); state files left in ${dir}`);
  }
  return result;
}

/** Under the lock: hold what earlier sessions left, bundle it session by session, release. */
async function bundleHeld(p: RecoverParams, at: Place, result: RecoverResult): Promise<void> {
  const { log, fs, dir, store, debug, warn } = at;
  let latest: Checkpoint | null;
  try {
    latest = p.latest !== undefined ? p.latest : await readLatestCheckpoint(store, p.sessionKey);
  } catch (err) {
    // without the latest checkpoint nothing can be judged newer than it: hold nothing now
    debug(`[context-manager] previous-session state not checked (checkpoints unreadable: ${String(err)})`);
    return;
  }
  await holdPreviousSessionFiles(fs, dir, { sessionKey: p.sessionKey, sessionId: p.sessionId, latestCheckpointAt: latest?.meta.created_at ?? null }, new Date());
  const held = await readHeldSessions(fs, dir, p.sessionKey);
  if (held.invalid.length) warn(`[context-manager] previous-session state not bundled, moved to ${dir}/stale: ${held.invalid.join("; ")}`);
  let writer: CheckpointWriter | null = null;
  for (const session of held.sessions) {
    const { state, invalid } = ContextState.fromData(
      { stateDir: p.stateDir, sessionKey: p.sessionKey, sessionId: session.sessionId, config: p.config, logger: log },
      session.files,
    );
    if (invalid.length) warn(`[context-manager] previous-session state partly invalid, left out: ${invalid.join("; ")}`);
    const snap = state.snapshot();
    // that session's own latest checkpoint, if the latest is one
    const own = latest !== null && (latest.meta.session_id ?? null) === session.sessionId ? latest : null;
    const u = own?.meta.token_usage;
    const draft = buildCheckpointDraft({
      state: snap,
      previous: latest,
      trigger: "session-end",
      reading: {
        tokens: u?.input_tokens ?? 0,
        contextWindow: u?.context_window ?? 0,
        utilization: u?.utilization ?? 0,
        source: "estimate",
      },
      identity: {
        sessionKey: p.sessionKey,
        sessionId: session.sessionId,
        sessionFile: own ? own.meta.session_file : null,
        agentId: own ? own.meta.agent_id : null,
        channel: own ? own.meta.channel : null,
      },
      compactionCount: own ? own.meta.compaction_count : 0,
      config: p.config,
    });
    if (isEmpty(snap) || (own && sameContent(draft, own))) {
      // already in that session's latest checkpoint (or nothing captured): nothing to bundle
      await releaseHeld(fs, session);
      result.covered++;
      debug(`[context-manager] previous session ${JSON.stringify(session.sessionId)}: state already checkpointed, released`);
      continue;
    }
    draft.recovered = {
      by_session_id: p.sessionId,
      state_updated_at: session.updatedAt,
      files: session.files.map((f) => f.name),
      files_modified_since_checkpoint: snap.resources.files_modified,
    };
    // what this bundle cannot know afresh: the workspace record (drift compares with it), the stored outputs
    if (own?.workspace) draft.workspace = own.workspace;
    if (own?.artifacts) draft.artifacts = own.artifacts;
    try {
      writer ??= new CheckpointWriter(store, p.sessionKey);
      const w = await writer.write(draft);
      if (!w.written) throw new Error(`not written (${w.reason})`);
      await releaseHeld(fs, session);
      latest = w.checkpoint;
      result.written.push(w.checkpoint);
      debug(
        `[context-manager] bundled the state of previous session ${JSON.stringify(session.sessionId)} (ended without a checkpoint) into ${w.id}`,
      );
    } catch (err) {
      result.failed++;
      warn(
        `[context-manager] could not bundle the state of previous session ${JSON.stringify(session.sessionId)} into a checkpoint (${String(err)}); its files stay in ${dir} for the next attempt`,
      );
      break; // keep order: a later session's bundle must not overtake an earlier one
    }
  }
}

/** The state files read once, when none is held or to hold; null when there is, or it cannot tell without the lock. */
async function onlyOwnFiles(p: RecoverParams, at: Place, entries: readonly string[]) {
  const { fs, dir, store } = at;
  if (entries.some((e) => e.startsWith("previous."))) return null;
  let latest: Checkpoint | null;
  try {
    latest = p.latest !== undefined ? p.latest : await readLatestCheckpoint(store, p.sessionKey);
  } catch {
    return null;
  }
  const exp = { sessionKey: p.sessionKey, sessionId: null, latestCheckpointAt: latest?.meta.created_at ?? null };
  const files = new Map<StateFileName, StateFileRead>();
  for (const name of STATE_FILE_NAMES) {
    const read = await readStateEnvelope(fs, stateFilePath(dir, name));
    if (read.kind === "missing" && entries.includes(`${name}.json`)) return null;
    // what holdPreviousSessionFiles would hold: an "ok" file of another session
    const verdict = judgeStateFile(read, exp);
    if (verdict.kind === "ok" && verdict.sessionId !== p.sessionId) return null;
    files.set(name, read);
  }
  return files;
}

/** Nothing a checkpoint would show: no message, tool, note or ledger entry was captured. */
function isEmpty(s: ContextStateSnapshot): boolean {
  const { resources: r, work: w } = s;
  const lists = [s.decisions, s.errors, s.openItems, s.learnings, r.files_read, r.files_modified, r.tools_used];
  return !s.hasActivity && [...lists, w.files, w.commands, w.requests, w.open_failures].every((l) => l.length === 0);
}

const CONTENT_KEYS = ["working", "decisions", "resources", "thread", "open_items", "learnings", "work"] as const;

/** The sections a bundle would carry are those of the latest checkpoint (key order ignored). */
function sameContent(draft: Pick<Checkpoint, (typeof CONTENT_KEYS)[number]>, cp: Checkpoint): boolean {
  const sorted = (_k: string, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x;
  return CONTENT_KEYS.every((k) => JSON.stringify(draft[k], sorted) === JSON.stringify(cp[k], sorted));
}
