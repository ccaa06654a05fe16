/** The drift report of a checkpoint for its restore block (an extra section, see driftExtraSection). */
import path from "node:path";
import type { Checkpoint } from "../checkpoint/schema.js";
import type { RenderedRestore, RestoreExtraSection } from "../inject/sections.js";
import { debugLog } from "../../infra/debug-log.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { compareWorkspace, type DriftReport } from "./compare.js";
import { DRIFT_SECTION_ID } from "./render.js";

/** The drift report of a checkpoint against the workspace now; null without a record or on failure. */
export function driftOf(cp: Checkpoint, stateDir: string): DriftReport | null {
  try {
    if (!cp.workspace) return null;
    // a bundled previous-session state says itself what the session changed after its record
    const later = cp.recovered
      ? new Set(cp.recovered.files_modified_since_checkpoint)
      : readLaterWork(stateDir, cp.meta.session_key, cp.meta.session_id, cp.meta.created_at);
    return compareWorkspace(cp.workspace, later);
  } catch (e) {
    debugLog("workspace drift compare", e);
    return null;
  }
}

const STATE_FILE_MAX = 4 * 1024 * 1024;

/** The files the session touched after the checkpoint (its `resources` state); null when unknown. */
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
