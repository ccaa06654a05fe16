/**
 * The restore block of a session key (spec §8.2): the latest checkpoint rendered with workspace drift and
 * stored outputs (the CLI's `restore` too: no pi import reached); the owed block: restore-delivery.ts. Never throws.
 */
import { readLatestCheckpoint } from "../checkpoint/files.js";
import { type RenderedRestore, type RestoreExtraSection, renderCheckpointRestore } from "../inject/render-restore.js";
import { tryParseHandle } from "../artifacts/handle.js";
import { FETCH_TOOL_NAME } from "../artifacts/preview.js";
import { type ArtifactRef, type Checkpoint, LINES_RE } from "../checkpoint/schema.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { type DriftReport, driftOf } from "../drift/record.js";
import { driftExtraSection } from "../drift/render.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import type { WarnLogger } from "../../infra/log-once.js";
import { warnSafely } from "../../infra/log-once.js";

/** Artifacts the "Stored outputs" extra section shows at most (those a checkpoint points at, newest first). */
const RESTORE_MAX_LINES = 3;

export const ARTIFACTS_EXTRA_TITLE = `Stored outputs (read with ${FETCH_TOOL_NAME}):`;

/** The stored outputs as an extra section: the renderer quotes each entry and re-checks its handle. */
export function artifactsExtraSection(refs: readonly ArtifactRef[] | undefined): RestoreExtraSection | null {
  const shown = (refs ?? []).filter((r) => tryParseHandle(r.handle) !== null).slice(0, RESTORE_MAX_LINES);
  if (shown.length === 0) return null;
  return {
    id: "artifacts", // its id in RenderedRestore.omittedExtras
    title: ARTIFACTS_EXTRA_TITLE,
    // a partial read names its lines: two reads of one file are told apart
    lines: shown.map((r) => `${[...r.tool].slice(0, 24).join("")} ${tailOf(r.target, 80)}${r.lines && LINES_RE.test(r.lines) ? ` lines ${r.lines}` : ""} (${Math.max(1, Math.round(r.bytes / 1024))} KB)`),
    handles: shown.map((r) => r.handle),
  };
}

/** A long target keeps its end (the file name, the last words of a command), not its start. */
function tailOf(target: string, max: number): string {
  const chars = [...target];
  return chars.length <= max ? target : `…${chars.slice(chars.length - (max - 1)).join("")}`;
}

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
  params: RestoreParams & { kind: RestoreKind; accept?: (cp: Checkpoint) => boolean; logger?: WarnLogger },
): Promise<RestoreBlock | null> {
  if (seamKey("readCheckpointForInjection", sessionKey, params?.logger) === null) return null;
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
