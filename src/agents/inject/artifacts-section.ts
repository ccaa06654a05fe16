/** The restore block's "Stored outputs" section: the artifacts a checkpoint points at, newest first. */
import { tryParseHandle } from "../artifacts/handle.js";
import { FETCH_TOOL_NAME } from "../artifacts/preview.js";
import type { ArtifactRef } from "../checkpoint/schema.js";
import { LINES_RE } from "../checkpoint/schema.js";
import type { RestoreExtraSection } from "./sections.js";

const RESTORE_MAX_LINES = 3;

export const ARTIFACTS_EXTRA_TITLE = `Stored outputs (read with ${FETCH_TOOL_NAME}):`;
/** The section's id in RenderedRestore.omittedExtras. */
export const ARTIFACTS_SECTION_ID = "artifacts";

/** The stored outputs as an extra section: the renderer quotes each entry and re-checks its handle. */
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
