/**
 * Which files the checkpoint's session touched AFTER the checkpoint, as far as its capture knows:
 * the `resources` state file of that session (see state/state-files.ts), when it was written at or
 * after the checkpoint. null when unknown (no such file, another session's, unreadable), so the
 * render then makes no claim about who changed a file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { stateSessionDir } from "../../infra/session-dir.js";

const STATE_FILE_MAX = 4 * 1024 * 1024;

export function readLaterWork(stateDir: string, sessionKey: string, sessionId: string | null, checkpointAt: string): ReadonlySet<string> | null {
  try {
    const file = path.join(stateSessionDir(stateDir, sessionKey), "resources.json");
    const text = readFileSync(file, "utf8");
    if (text.length > STATE_FILE_MAX) return null;
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
