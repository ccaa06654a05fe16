/**
 * Adds the drift section to a restore block within the SAME token budget: the drift lines are
 * computed first (at most a quarter of the budget), the block is rendered with what is left,
 * and the lines go right after the block's fixed top (header, checkpoint, working state), before
 * the optional sections. Nothing changes when the checkpoint has no workspace record or nothing moved.
 */
import type { Checkpoint } from "../context-checkpoint-schema.js";
import type { RenderedRestore } from "../context-checkpoint-inject.js";
import { debugLog } from "../debug-log.js";
import { estimateTextTokens } from "../token-estimate.js";
import { compareWorkspace, type DriftReport } from "./compare.js";
import { readLaterWork } from "./later-work.js";
import { renderDriftSection } from "./render.js";

/** Share of the restore budget the drift section may take. */
const DRIFT_BUDGET_SHARE = 0.25;

export interface DriftContext {
  stateDir: string;
}

/** The drift report of a checkpoint against the workspace now; null when it has no record (or, defensively, on any failure). */
export function driftOf(cp: Checkpoint, ctx: DriftContext): DriftReport | null {
  try {
    if (!cp.workspace) return null;
    const later = readLaterWork(ctx.stateDir, cp.meta.session_key, cp.meta.session_id, cp.meta.created_at);
    return compareWorkspace(cp.workspace, { laterWork: later });
  } catch (e) {
    debugLog("workspace drift compare", e);
    return null;
  }
}

/** `render(maxTokens)` renders the block; returns it with the drift section spliced in, never over `maxTokens`. */
export function renderWithDrift(
  report: DriftReport | null,
  maxTokens: number,
  render: (maxTokens: number) => RenderedRestore,
): RenderedRestore & { drift: string[] } {
  const maxChars = Math.max(0, Math.floor(maxTokens)) * 4;
  const drift = report ? renderDriftSection(report, Math.floor(maxChars * DRIFT_BUDGET_SHARE)) : [];
  if (drift.length === 0) return { ...render(maxTokens), drift };
  // the section plus a blank line before it
  const reserve = drift.reduce((n, l) => n + l.length + 1, 0) + 1;
  const base = render(Math.floor((maxChars - reserve) / 4));
  if (!base.text) return { ...base, drift: [] };
  const lines = base.text.split("\n");
  const blank = lines.indexOf("");
  const at = blank >= 0 ? blank : lines.length - 1;
  lines.splice(at, 0, "", ...drift);
  const text = lines.join("\n");
  return { text, tokens: estimateTextTokens(text), omitted: base.omitted, drift };
}
