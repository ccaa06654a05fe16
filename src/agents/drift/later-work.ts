/**
 * Which files the checkpoint's session touched AFTER the checkpoint, as far as its capture knows:
 * the `resources` state file of that session (see state/state-files.ts), when it was written at or
 * after the checkpoint. null when unknown (no such file, another session's, unreadable), so the
 * render then makes no claim about who changed a file.
 */
import path from "node:path";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";
import { stateSessionDir } from "../../infra/session-dir.js";

const STATE_FILE_MAX = 4 * 1024 * 1024;

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
