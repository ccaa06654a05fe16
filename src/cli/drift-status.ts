/** The workspace drift of a checkpoint for `status` (issue 17): a JSON value and human lines. */
import type { Checkpoint } from "../agents/checkpoint/schema.js";
import { type DriftReport, driftOf } from "../agents/drift/record.js";
import { renderDriftSection } from "../agents/drift/render.js";

export interface DriftStatus {
  /** false: the checkpoint has no workspace record */
  recorded: boolean;
  drifted: boolean;
  report: DriftReport | null;
}

export function driftStatus(cp: Checkpoint, stateDir: string): DriftStatus {
  let report: DriftReport | null = null;
  try {
    report = driftOf(cp, stateDir);
  } catch {
    report = null;
  }
  return { recorded: cp.workspace !== undefined, drifted: report?.drifted ?? false, report };
}

export function driftStatusLines(cp: Checkpoint, d: DriftStatus): string[] {
  const w = cp.workspace;
  if (!w || !d.report) return ["  workspace: not recorded in this checkpoint"];
  if (d.drifted) return renderDriftSection(d.report, 100_000).map((l) => `  ${l}`);
  const git = w.git ? ` · git ${w.git.branch ?? "detached"}@${(w.git.head ?? "none").slice(0, 7)} ${w.git.dirty === null ? "" : w.git.dirty ? "dirty" : "clean"}`.trimEnd() : "";
  return [`  workspace: unchanged since the checkpoint (${d.report.filesChecked} files checked${git})`];
}
