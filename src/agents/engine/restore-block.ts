/**
 * The restore block of a session key (spec §8.2): the latest checkpoint rendered with workspace drift and
 * stored outputs, and the one rule of which block is owed. Never throws: a failure means "no block".
 */
import { readLatestCheckpoint } from "../checkpoint/recovery.js";
import type { Checkpoint } from "../checkpoint/schema.js";
import { renderCheckpointRestore } from "../inject/render-restore.js";
import { artifactsExtraSection, type RenderedRestore, type RestoreExtraSection } from "../inject/sections.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { type DriftReport, driftOf } from "../drift/compare.js";
import { driftExtraSection } from "../drift/render.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import { type WarnLogger, warnSafely } from "../../infra/log-once.js";
import { type CompactionOutcome, compactionOutcomeSince } from "./compaction.js";

export type RestoreKind = "post-compaction" | "resume";

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

const reportedBadKeys = new Set<string>();

/** A restore seam's key as the host passed it, or null (not a string: logged once per seam and kind of value). */
export function seamKey(seam: string, value: unknown, logger: WarnLogger | undefined): string | null {
  const key = hostSessionKey(value);
  if (key !== null) return key;
  const what = describeBadKey(value);
  if (!reportedBadKeys.has(`${seam}\u0000${what}`)) {
    reportedBadKeys.add(`${seam}\u0000${what}`);
    warnSafely(logger, `[context-manager] ${seam}: the session key is ${what}, not a string; no restore block for this call`);
  }
  return null;
}

export function restoreConfigOf(p: RestoreParams): ContextManagerConfig {
  const c = p.config as ContextManagerConfig | undefined;
  return c && typeof c === "object" && "restoreMaxTokens" in c ? c : resolveContextManagerConfig(p.config ?? {});
}

/** The rendered block of the latest checkpoint of `sessionKey`, or null. */
export async function readCheckpointForInjection(
  sessionKey: string,
  params: RestoreParams & { kind: RestoreKind; accept?: (cp: Checkpoint) => boolean },
): Promise<RestoreBlock | null> {
  if (seamKey("readCheckpointForInjection", sessionKey, (params as { logger?: WarnLogger } | undefined)?.logger) === null) return null;
  try {
    const config = restoreConfigOf(params);
    if (!config.enabled) return null;
    const cp = await readLatestCheckpoint({ stateDir: params.stateDir, fs: params.fs }, canonicalSessionKey(sessionKey));
    if (!cp || (params.accept && !params.accept(cp))) return null;
    return restoreBlockOf(cp, { stateDir: params.stateDir, kind: params.kind, maxTokens: config.restoreMaxTokens });
  } catch {
    return null;
  }
}

/** `cp` as the block the host injects, drift included: for a caller that read it already (pi's `/context`). */
export function restoreBlockOf(cp: Checkpoint, opts: { stateDir: string; kind: RestoreKind; maxTokens: number }): RestoreBlock {
  let drift: DriftReport | null = null;
  try {
    drift = driftOf(cp, opts.stateDir);
  } catch {
    drift = null; // the block goes out without the drift section
  }
  const rendered = renderRestoreBlock(cp, { kind: opts.kind, maxTokens: opts.maxTokens, drift });
  return { text: rendered.text, tokens: rendered.tokens, checkpoint: cp, drift };
}

/** `cp` as the block the host injects (and the CLI's `restore` prints): drift, then stored outputs, rendered once. */
export function renderRestoreBlock(cp: Checkpoint, opts: { kind: RestoreKind; maxTokens: number; drift: DriftReport | null }): RenderedRestore {
  const extras = [opts.drift ? driftExtraSection(opts.drift) : null, artifactsExtraSection(cp.artifacts)];
  const extraSections = extras.filter((s): s is RestoreExtraSection => s !== null);
  return renderCheckpointRestore(cp, { kind: opts.kind, maxTokens: opts.maxTokens, extraSections });
}

export interface OwedRestore extends RestoreParams {
  kind: RestoreKind;
  /** the host key as given: the read maps it to the stored key itself */
  sessionKey: string;
  /** this session's id first, then the ids it was known by (pre-rotation, earlier instances) */
  sessionIds: ReadonlyArray<string | null> | (() => ReadonlyArray<string | null>);
  /** post-compaction: when the compaction started (0: any time) */
  since?: number;
  logger?: WarnLogger;
  /** resume: bundles the previous session's uncheckpointed state before the read (spec §7.3) */
  bundlePrevious: () => Promise<unknown>;
}

/**
 * The one delivery rule of every host (core's seams have no engine): resume, a checkpoint of an
 * earlier session (none of `sessionIds`); post-compaction, compactionCheckpointFilter.
 */
export async function owedRestoreBlock(p: OwedRestore): Promise<RestoreBlock | null> {
  if (p.kind === "resume") await p.bundlePrevious();
  const ids = typeof p.sessionIds === "function" ? p.sessionIds() : p.sessionIds;
  const accept =
    p.kind === "resume"
      ? (cp: Checkpoint) => !(cp.meta.session_id !== null && ids.includes(cp.meta.session_id))
      : compactionCheckpointFilter(p.stateDir, p.sessionKey, ids, p.since ?? 0, p.logger);
  if (!accept) return null;
  const { bundlePrevious: _bundle, sessionIds: _ids, since: _since, sessionKey, ...read } = p;
  return readCheckpointForInjection(sessionKey, { ...read, accept });
}

/**
 * Which checkpoint may stand for the compaction that started at `since`: the one its hook wrote
 * (none, logged, when it failed), else a compaction checkpoint created since.
 */
function compactionCheckpointFilter(
  stateDir: string,
  sessionKey: string,
  sessionIds: ReadonlyArray<string | null>,
  since: number,
  logger: WarnLogger | undefined,
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
    warnSafely(
      logger,
      "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
    );
    return null;
  }
  const mine = (cp: Checkpoint): boolean => sessionIds.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction";
  const written = outcome?.checkpointId;
  if (written) return (cp) => mine(cp) && cp.meta.checkpoint_id === written;
  return (cp) => mine(cp) && Date.parse(cp.meta.created_at) >= since;
}
