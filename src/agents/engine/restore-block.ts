/**
 * The restore block of a session key (spec §8.2): the latest checkpoint, read and rendered with its
 * extra sections (workspace drift, stored outputs). Host-neutral; every host reaches it through
 * restore-delivery.ts. Never throws: a failure means "no block".
 */
import { readLatestCheckpoint } from "../checkpoint/recovery.js";
import type { Checkpoint } from "../checkpoint/schema.js";
import { renderCheckpointRestore } from "../inject/render-restore.js";
import type { RenderedRestore, RestoreExtraSection } from "../inject/sections.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { canonicalSessionKey } from "../../infra/session-key.js";
import type { WarnLogger } from "../../infra/log-once.js";
import type { DriftReport } from "../drift/compare.js";
import { driftOf } from "../drift/restore-section.js";
import { driftExtraSection } from "../drift/render.js";
import { artifactsExtraSection } from "../inject/artifacts-section.js";
import { seamKey } from "./restore-seam-key.js";

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
