/**
 * The drift section of a restore block: the report of a checkpoint's workspace record against the
 * workspace now. Restore hands it to the renderer as one of its extra sections
 * (RenderRestoreOptions.extraSections, see driftExtraSection), budgeted by the renderer's priority
 * plan. Nothing is added when the checkpoint has no workspace record or nothing moved.
 */
import path from "node:path";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { RenderedRestore, RestoreExtraSection } from "../inject/sections.js";
import { debugLog } from "../../infra/debug-log.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { compareWorkspace, type DriftReport } from "./compare.js";
import { DRIFT_SECTION_ID } from "./render.js";

export interface DriftContext {
  stateDir: string;
}

/** The drift report of a checkpoint against the workspace now; null when it has no record (or, defensively, on any failure). */
export function driftOf(cp: Checkpoint, ctx: DriftContext): DriftReport | null {
  try {
    if (!cp.workspace) return null;
    // a bundled previous-session state says itself what the session changed after its record
    const later = cp.recovered
      ? new Set(cp.recovered.files_modified_since_checkpoint)
      : readLaterWork(ctx.stateDir, cp.meta.session_key, cp.meta.session_id, cp.meta.created_at);
    return compareWorkspace(cp.workspace, { laterWork: later });
  } catch (e) {
    debugLog("workspace drift compare", e);
    return null;
  }
}

const STATE_FILE_MAX = 4 * 1024 * 1024;

/**
 * Which files the checkpoint's session touched AFTER the checkpoint, as far as its capture knows:
 * the `resources` state file of that session (see state/state-files.ts), when it was written at or
 * after the checkpoint. null when unknown (no such file, another session's, unreadable), so the
 * render then makes no claim about who changed a file.
 */
export function readLaterWork(stateDir: string, sessionKey: string, sessionId: string | null, checkpointAt: string): ReadonlySet<string> | null {
  try {
    const file = path.join(stateSessionDir(stateDir, sessionKey), "resources.json");
    // a FIFO or /dev/zero planted there must not block or fill the event loop
    const text = readSmallRegularFileSync(file, STATE_FILE_MAX)?.toString("utf8");
    if (text === undefined) return null;
    const env = JSON.parse(text) as { session_key?: unknown; session_id?: unknown; updated_at?: unknown; data?: { files_modified?: unknown } };
    if (env.session_key !== sessionKey || (env.session_id ?? null) !== sessionId || sessionId === null) return null;
    const updated = typeof env.updated_at === "string" ? Date.parse(env.updated_at) : Number.NaN;
    const at = Date.parse(checkpointAt);
    if (!Number.isFinite(updated) || !Number.isFinite(at) || updated < at) return null;
    const files = env.data?.files_modified;
    if (!Array.isArray(files)) return null;
    return new Set(files.filter((f): f is string => typeof f === "string"));
  } catch {
    return null;
  }
}

/** The drift entries a rendered block shows: none when there were none or the renderer left the section out. */
export function driftShown(section: RestoreExtraSection | null, rendered: RenderedRestore): string[] {
  return section && !(rendered.omittedExtras ?? []).includes(DRIFT_SECTION_ID) ? section.lines : [];
}
