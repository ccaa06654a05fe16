/**
 * A checkpoint's recorded workspace against now, differences only: the same full hash is unchanged
 * whatever the mtime; the dirty flag counts only when known at both ends.
 */
import path from "node:path";
import type { Checkpoint, WorkspaceFile, WorkspaceSnapshot } from "../checkpoint/schema.js";
import { debugLog } from "../../infra/debug-log.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { fingerprintFile } from "./fingerprint.js";
import { isDirectory } from "../../infra/fs-ops.js";
import { headMove } from "./git-repo.js";
import { gitNow } from "./record.js";

/** Files compared at most (the newest), whatever a checkpoint lists. */
export const COMPARE_MAX_FILES = 100;

export type FileChange = "changed" | "deleted" | "created" | "unreadable";

export interface FileDrift {
  path: string;
  change: FileChange;
  /** session: its later work touched it (per its capture); outside: no record of that; null: unknown */
  by: "session" | "outside" | null;
}

export interface GitDrift {
  /** the checkout that was there is gone (no git work tree at cwd any more) */
  repoGone: boolean;
  branch: { from: string | null; to: string | null } | null;
  head: { from: string | null; to: string | null; ahead: number | null; behind: number | null } | null;
  dirty: { from: boolean; to: boolean } | null;
  /** dirty flag now (null: unknown); context for the render */
  dirtyNow: boolean | null;
}

export interface DriftReport {
  cwd: string;
  /** false: the recorded working directory no longer exists */
  workspaceFound: boolean;
  files: FileDrift[];
  filesChecked: number;
  git: GitDrift | null;
  /** true when anything above is a difference worth telling */
  drifted: boolean;
}

function fileChange(before: WorkspaceFile, now: WorkspaceFile): FileChange | null {
  if (before.state === "unreadable") return null; // nothing to compare against
  if (now.state === "unreadable") return "unreadable";
  // missing or not a regular file at checkpoint time
  if (before.state !== "present") return now.state === "present" ? "created" : null;
  if (now.state === "missing") return "deleted";
  const sampledMoved = before.hash_scope === "sampled" && now.mtime_ms !== before.mtime_ms;
  return now.state !== "present" || now.size !== before.size || now.hash !== before.hash || sampledMoved ? "changed" : null;
}

/** `later`: the paths the session touched after the checkpoint, when its capture knows. */
export function compareWorkspace(snapshot: WorkspaceSnapshot, later: ReadonlySet<string> | null = null): DriftReport {
  const cwd = snapshot.cwd;
  // a relative cwd (a hand-made file) would be read against this process's cwd
  const found = path.isAbsolute(cwd) && isDirectory(cwd);
  const report: DriftReport = { cwd, workspaceFound: found, files: [], filesChecked: 0, git: null, drifted: !found };
  if (!found) return report;
  // the writer records at most DRIFT_MAX_FILES; a hand-edited file cannot make a restore slow
  for (const before of snapshot.files.slice(-COMPARE_MAX_FILES)) {
    const now = fingerprintFile(cwd, before.path);
    report.filesChecked++;
    const change = fileChange(before, now);
    if (change) report.files.push({ path: before.path, change, by: later ? (later.has(before.path) ? "session" : "outside") : null });
  }
  if (snapshot.git) report.git = compareGit(cwd, snapshot);
  const g = report.git;
  report.drifted = report.files.length > 0 || (g !== null && (g.repoGone || g.branch !== null || g.head !== null || g.dirty !== null));
  return report;
}

function compareGit(cwd: string, snapshot: WorkspaceSnapshot): GitDrift {
  const was = snapshot.git!;
  const now = gitNow(cwd, snapshot.files.slice(-COMPARE_MAX_FILES).map((f) => f.path), false);
  if (!now) return { repoGone: true, branch: null, head: null, dirty: null, dirtyNow: null };
  const { repo, branch, head, dirty: dirtyNow } = now;
  const move = head && was.head && head !== was.head ? headMove(repo, was.head, head) : { ahead: null, behind: null };
  return {
    repoGone: false,
    branch: branch !== was.branch ? { from: was.branch, to: branch } : null,
    head: head !== was.head ? { from: was.head, to: head, ...move } : null,
    dirty: was.dirty !== null && dirtyNow !== null && was.dirty !== dirtyNow ? { from: was.dirty, to: dirtyNow } : null,
    dirtyNow,
  };
}

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
