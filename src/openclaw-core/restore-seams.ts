/**
 * The restore seams core calls at its injection site (spec §8.2, §10.3):
 * read the latest checkpoint of a session key and render the block the agent
 * receives, after a compaction or when a new session starts on the same key.
 * Core passes its own `enqueueSystemEvent`, so this package never imports
 * OpenClaw internals. Never throws: a failure means "no block".
 */
import { readLatestCheckpoint } from "../agents/checkpoint/recovery.js";
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { renderCheckpointRestore } from "../agents/inject/restore-block.js";
import type { RenderedRestore, RestoreExtraSection } from "../agents/inject/sections.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../agents/config/context-manager-config.js";
import type { FsOps } from "../infra/fs-ops.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../infra/session-key.js";
import { type CompactionOutcome, compactionOutcomeSince } from "../agents/checkpoint/compaction-outcome.js";
import { consoleWarnLogger, type WarnLogger } from "../infra/log-once.js";
import type { DriftReport } from "../agents/drift/compare.js";
import { driftOf } from "../agents/drift/restore-section.js";
import { driftExtraSection } from "../agents/drift/render.js";
import { artifactsExtraSection } from "../agents/artifacts/checkpoint-artifacts.js";
import { recoverPreviousSessions } from "../agents/engine/recover-previous-session.js";

export type RestoreKind = "post-compaction" | "resume";
export type Enqueue = (text: string, opts: { sessionKey: string }) => unknown;

export interface RestoreParams {
  stateDir: string;
  config?: ContextManagerConfig | unknown;
  fs?: FsOps;
}

export interface RestoreBlock {
  text: string;
  tokens: number;
  checkpoint: Checkpoint;
  /** the workspace compared with the checkpoint's record (null: no record) */
  drift?: DriftReport | null;
}

function configOf(p: RestoreParams): ContextManagerConfig {
  const c = p.config as ContextManagerConfig | undefined;
  return c && typeof c === "object" && "restoreMaxTokens" in c ? c : resolveContextManagerConfig(p.config ?? {});
}

const reportedBadKeys = new Set<string>();

/**
 * The key of a restore seam's call, or null when the host passed something that is not one (null,
 * undefined, a number, an object): then the seam does nothing and says so in one log line (once per
 * seam and kind of value), never a throw into the host's reply path (issue 28).
 */
function seamKey(seam: string, value: unknown, logger: WarnLogger | undefined): string | null {
  const key = hostSessionKey(value);
  if (key !== null) return key;
  const what = describeBadKey(value);
  if (!reportedBadKeys.has(`${seam}\u0000${what}`)) {
    reportedBadKeys.add(`${seam}\u0000${what}`);
    try {
      (logger ?? consoleWarnLogger).warn(`[context-manager] ${seam}: the session key is ${what}, not a string; no restore block for this call`);
    } catch {
      // a broken logger must not break the host
    }
  }
  return null;
}

/** The rendered block of the latest checkpoint of `sessionKey`, or null. */
export async function readCheckpointForInjection(
  sessionKey: string,
  params: RestoreParams & { kind: RestoreKind; accept?: (cp: Checkpoint) => boolean },
): Promise<RestoreBlock | null> {
  if (seamKey("readCheckpointForInjection", sessionKey, (params as { logger?: WarnLogger } | undefined)?.logger) === null) return null;
  try {
    const config = configOf(params);
    if (!config.enabled) return null;
    const cp = await readLatestCheckpoint({ stateDir: params.stateDir, fs: params.fs }, canonicalSessionKey(sessionKey));
    if (!cp || (params.accept && !params.accept(cp))) return null;
    return restoreBlockOf(cp, { stateDir: params.stateDir, kind: params.kind, maxTokens: config.restoreMaxTokens });
  } catch {
    return null;
  }
}

/**
 * `cp` rendered as the block the host injects, its workspace drift included: for a caller that
 * already read the checkpoint and names it (pi's `/context`), so the block is of that one and not
 * of a checkpoint written meanwhile.
 */
export function restoreBlockOf(cp: Checkpoint, opts: { stateDir: string; kind: RestoreKind; maxTokens: number }): RestoreBlock {
  let drift: DriftReport | null = null;
  try {
    drift = driftOf(cp, { stateDir: opts.stateDir });
  } catch {
    drift = null; // the block goes out without the drift section
  }
  const rendered = renderRestoreBlock(cp, { kind: opts.kind, maxTokens: opts.maxTokens, drift });
  return { text: rendered.text, tokens: rendered.tokens, checkpoint: cp, drift };
}

/** The extra sections of `cp`'s block, in block order: workspace drift, then stored outputs. */
export function restoreExtraSections(cp: Checkpoint, drift: DriftReport | null): RestoreExtraSection[] {
  const sections = [drift ? driftExtraSection(drift) : null, artifactsExtraSection(cp.artifacts)];
  return sections.filter((s): s is RestoreExtraSection => s !== null);
}

/**
 * `cp` as the block the host injects (the CLI's `restore` prints the same): the extra sections
 * gathered first, rendered once; `omittedExtras` says which of them did not fit.
 */
export function renderRestoreBlock(cp: Checkpoint, opts: { kind: RestoreKind; maxTokens: number; drift: DriftReport | null }): RenderedRestore {
  return renderCheckpointRestore(cp, { kind: opts.kind, maxTokens: opts.maxTokens, extraSections: restoreExtraSections(cp, opts.drift) });
}

/**
 * After any compaction (auto, overflow retry, manual): enqueue the block of the
 * compaction checkpoint this session just wrote. A checkpoint of another
 * session, or one older than the compaction, is never passed off as
 * post-compaction state. OpenClaw 2026.9 can rotate the transcript during
 * compaction: `sessionId` is then the successor and `previousSessionId` the
 * session that wrote the checkpoint; both are "this session".
 * When the hook ran, only the checkpoint it wrote is sent; when it could not write one,
 * nothing is sent and that is logged (never an older checkpoint in its place).
 */
export async function onCompactionCompleted(
  params: RestoreParams & {
    sessionKey: string;
    sessionId: string;
    previousSessionId?: string;
    since: number;
    enqueue: Enqueue;
    logger?: WarnLogger;
  },
): Promise<RestoreBlock | null> {
  if (seamKey("onCompactionCompleted", params?.sessionKey, params?.logger) === null) return null;
  const ids = params.previousSessionId ? [params.sessionId, params.previousSessionId] : [params.sessionId];
  // a checkpoint compaction (issue 25): its summary is the restore, already in the history
  const stored = canonicalSessionKey(params.sessionKey);
  if (ids.some((id) => compactionOutcomeSince(params.stateDir, stored, id, params.since)?.summarized === true)) return null;
  const accept = compactionCheckpointFilter(params.stateDir, params.sessionKey, ids, params.since, params.logger);
  if (!accept) return null;
  const block = await readCheckpointForInjection(params.sessionKey, { ...params, kind: "post-compaction", accept });
  if (block) params.enqueue(block.text, { sessionKey: params.sessionKey });
  return block;
}

/**
 * Which checkpoint may stand for the compaction that started at `since`, for a session known
 * by `sessionIds`; null (logged) when the compaction hook ran and could not write one. Without a
 * record of the hook, only a compaction checkpoint created at or after `since` is accepted.
 * Shared by the hosted seam above and standalone pi.
 */
export function compactionCheckpointFilter(
  stateDir: string,
  sessionKey: string,
  sessionIds: ReadonlyArray<string | null>,
  since: number,
  logger: WarnLogger = consoleWarnLogger,
): ((cp: Checkpoint) => boolean) | null {
  const stored = canonicalSessionKey(sessionKey);
  let outcome: CompactionOutcome | null = null;
  for (const id of sessionIds) {
    const o = compactionOutcomeSince(stateDir, stored, id, since);
    if (o && (!outcome || o.at > outcome.at)) outcome = o;
  }
  if (outcome && outcome.checkpointId === null) {
    if (outcome.reported) return null;
    outcome.reported = true;
    try {
      logger.warn(
        "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
      );
    } catch {
      // a broken logger must not break the host
    }
    return null;
  }
  const mine = (cp: Checkpoint): boolean => sessionIds.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction";
  const written = outcome?.checkpointId;
  if (written) return (cp) => mine(cp) && cp.meta.checkpoint_id === written;
  return (cp) => mine(cp) && Date.parse(cp.meta.created_at) >= since;
}

/** First turn of a new session id on a key that has a checkpoint from an earlier session. */
export async function onSessionStarted(
  params: RestoreParams & { sessionKey: string; sessionId: string; enqueue: Enqueue; logger?: WarnLogger },
): Promise<RestoreBlock | null> {
  if (seamKey("onSessionStarted", params?.sessionKey, params?.logger) === null) return null;
  // spec §7.3: a previous session's uncheckpointed state is bundled first, so the block shows it
  try {
    const config = configOf(params);
    if (config.enabled) {
      await recoverPreviousSessions({ stateDir: params.stateDir, sessionKey: canonicalSessionKey(params.sessionKey), sessionId: params.sessionId, config, fs: params.fs, logger: params.logger });
    }
  } catch {
    // never throws; the block of the latest checkpoint goes out as before
  }
  const block = await readCheckpointForInjection(params.sessionKey, {
    ...params,
    kind: "resume",
    accept: (cp) => cp.meta.session_id !== params.sessionId,
  });
  if (block) params.enqueue(block.text, { sessionKey: params.sessionKey });
  return block;
}
