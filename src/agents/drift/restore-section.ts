/**
 * Adds the drift section to a restore block within the SAME token budget, through the renderer's
 * extra-section slot (RenderRestoreOptions.extraSections): placed after the working lines and the
 * requests, budgeted by the renderer's priority plan (dropped whole, late, when space runs out).
 * Nothing changes when the checkpoint has no workspace record or nothing moved.
 */
import type { Checkpoint } from "../context-checkpoint-schema.js";
import type { RenderedRestore, RestoreExtraSection } from "../inject/sections.js";
import { debugLog } from "../../infra/debug-log.js";
import { compareWorkspace, type DriftReport } from "./compare.js";
import { readLaterWork } from "./later-work.js";
import { DRIFT_EXTRA_TITLE, driftExtraSection } from "./render.js";

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

/**
 * `render(maxTokens, extraSections)` renders the block; the drift section goes in as an extra
 * section. `drift` holds the entries that made it into the text ([] when none or dropped).
 */
export function renderWithDrift(
  report: DriftReport | null,
  maxTokens: number,
  render: (maxTokens: number, extraSections: RestoreExtraSection[]) => RenderedRestore,
): RenderedRestore & { drift: string[] } {
  const extra = report ? driftExtraSection(report) : null;
  const rendered = render(maxTokens, extra ? [extra] : []);
  const shown = extra !== null && rendered.text.split("\n").includes(DRIFT_EXTRA_TITLE);
  return { ...rendered, drift: shown ? extra.lines : [] };
}
