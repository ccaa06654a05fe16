/**
 * The drift section of a restore block: the report of a checkpoint's workspace record against the
 * workspace now. Restore hands it to the renderer as one of its extra sections
 * (RenderRestoreOptions.extraSections, see driftExtraSection), budgeted by the renderer's priority
 * plan. Nothing is added when the checkpoint has no workspace record or nothing moved.
 */
import type { Checkpoint } from "../checkpoint/schema.js";
import type { RenderedRestore, RestoreExtraSection } from "../inject/sections.js";
import { debugLog } from "../../infra/debug-log.js";
import { compareWorkspace, type DriftReport } from "./compare.js";
import { readLaterWork } from "./later-work.js";
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

/** The drift entries a rendered block shows: none when there were none or the renderer left the section out. */
export function driftShown(section: RestoreExtraSection | null, rendered: RenderedRestore): string[] {
  return section && !(rendered.omittedExtras ?? []).includes(DRIFT_SECTION_ID) ? section.lines : [];
}
