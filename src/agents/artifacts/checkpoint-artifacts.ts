/**
 * Continuity (issue 15): a checkpoint records the handles of the session's stashed outputs
 * that matter (optional field `artifacts`, docs/checkpoint-schema.md), so the restore block
 * can point at them and gc keeps them while the checkpoint is kept.
 * Which matter: outputs of tools aimed at a file of the checkpoint's ledger (files modified,
 * then read), newest first, then the newest others; at most CHECKPOINT_MAX_ARTIFACTS.
 */
import { CheckpointError } from "../checkpoint/errors.js";
import type { ArtifactRef } from "../checkpoint/schema.js";
import type { RestoreExtraSection } from "../inject/sections.js";
import { tryParseHandle } from "./handle.js";
import { FETCH_TOOL_NAME } from "./preview.js";
import { sessionStashes } from "./session-stashes.js";

// The schema owns the stored type; re-exported for existing importers.

/** what a checkpoint may hold in `artifacts[].lines` (it is printed unquoted in the restore block) */
const LINES_RE = /^\d{1,9}-(?:\d{1,9})?$/;

export const CHECKPOINT_MAX_ARTIFACTS = 10;
/** lines of the restore block's artifacts section */
const RESTORE_MAX_LINES = 3;

const norm = (p: string) => p.replace(/^\.\//, "");

export function checkpointArtifacts(sessionKey: string, files: { modified: readonly string[]; read: readonly string[] }): ArtifactRef[] {
  const stashes = [...sessionStashes(sessionKey)].reverse(); // newest first
  if (stashes.length === 0) return [];
  const rank = (target: string): number => {
    const t = norm(target);
    if (!t) return 2;
    const hit = (list: readonly string[]) => list.some((f) => norm(f) === t || t.endsWith(`/${norm(f)}`) || norm(f).endsWith(`/${t}`));
    return hit(files.modified) ? 0 : hit(files.read) ? 1 : 2;
  };
  return stashes
    .map((s, i) => ({ s, i, r: rank(s.target) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .slice(0, CHECKPOINT_MAX_ARTIFACTS)
    .map(({ s }) => ({ handle: s.handle, tool: s.tool, target: s.target, ...(s.lines ? { lines: s.lines } : {}), bytes: s.bytes }));
}

/** The optional `artifacts` list of a parsed checkpoint (absent -> undefined); a bad entry is a CheckpointError. */
export function validateArtifactRefs(root: Record<string, unknown>, file: string): ArtifactRef[] | undefined {
  const raw = root.artifacts;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new CheckpointError(file, "artifacts", "expected a list");
  if (raw.length > 1000) throw new CheckpointError(file, "artifacts", "more than 1000 entries");
  return raw.map((e, i) => {
    const field = `artifacts[${i}]`;
    if (typeof e !== "object" || e === null || Array.isArray(e)) throw new CheckpointError(file, field, "expected a mapping");
    const o = e as Record<string, unknown>;
    if (tryParseHandle(o.handle) === null) throw new CheckpointError(file, `${field}.handle`, "expected ocm_artifact:v1:sha256:<64 lowercase hex>");
    for (const k of ["tool", "target"] as const) if (typeof o[k] !== "string") throw new CheckpointError(file, `${field}.${k}`, "expected a string");
    if (typeof o.bytes !== "number" || !Number.isSafeInteger(o.bytes) || o.bytes < 0) throw new CheckpointError(file, `${field}.bytes`, "expected a non-negative integer");
    if (o.lines !== undefined && (typeof o.lines !== "string" || !LINES_RE.test(o.lines))) throw new CheckpointError(file, `${field}.lines`, 'expected a line range like "120-219" or "120-"');
    return { handle: o.handle as string, tool: o.tool as string, target: o.target as string, ...(o.lines !== undefined ? { lines: o.lines as string } : {}), bytes: o.bytes };
  });
}

export const ARTIFACTS_EXTRA_TITLE = `Stored outputs (read with ${FETCH_TOOL_NAME}):`;
/** The section's id in RenderedRestore.omittedExtras. */
export const ARTIFACTS_SECTION_ID = "artifacts";

/**
 * The stored outputs as an extra section of the restore renderer (RenderRestoreOptions.extraSections):
 * tool and target quoted by the renderer like every untrusted string, the handle printed after
 * them (re-checked by the renderer), budgeted by its priority plan.
 */
export function artifactsExtraSection(refs: readonly ArtifactRef[] | undefined): RestoreExtraSection | null {
  const shown = (refs ?? []).filter((r) => tryParseHandle(r.handle) !== null).slice(0, RESTORE_MAX_LINES);
  if (shown.length === 0) return null;
  return {
    id: ARTIFACTS_SECTION_ID,
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
