/**
 * The workspace at checkpoint time (the newest modified files' fingerprints and git's branch, HEAD, dirty) and
 * against it now, differences only: the same full hash is unchanged whatever the mtime; the dirty flag counts
 * only when known at both ends. A file is hashed whole up to HASH_FULL_MAX_BYTES, else its size, head and tail
 * ("sampled": a same-size edit in the middle shows in the mtime only). O_NONBLOCK: a FIFO never blocks.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import path from "node:path";
import type { Checkpoint, WorkspaceFile, WorkspaceGit, WorkspaceSnapshot } from "../checkpoint/schema.js";
import { debugLog } from "../../infra/debug-log.js";
import { isDirectory } from "../../infra/fs-ops.js";
import { readAtSync as readAt, readSmallRegularFileSync } from "../../infra/regular-file.js";
import { stateSessionDir } from "../../infra/session-dir.js";
import { findGitRepo, type GitRepo, headMove, readGitHead } from "./git-index.js";
import { noteReading, recentlyClean, workTreeDirty } from "./git-index.js";

export const HASH_FULL_MAX_BYTES = 256 * 1024;
export const SAMPLE_BYTES = 16 * 1024;

/** Absolute path of a `files_modified` entry (relative entries are relative to cwd). */
export function resolveWorkspacePath(cwd: string, p: string): string {
  return path.isAbsolute(p) ? p : path.resolve(cwd, p);
}

export function fingerprintFile(cwd: string, p: string): WorkspaceFile {
  const base = { path: p, size: null, mtime_ms: null, hash: null, hash_scope: "none" as const };
  const abs = resolveWorkspacePath(cwd, p);
  try {
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) return { ...base, state: "missing" };
    if (!st.isFile()) return { ...base, state: "other" };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException | null)?.code;
    return { ...base, state: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable" };
  }
  let fd: number | null = null;
  try {
    fd = openSync(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile()) return { ...base, state: "other" };
    const size = st.size;
    const h = createHash("sha1");
    const full = size <= HASH_FULL_MAX_BYTES;
    // sampled: size, head, tail
    if (!full) h.update(`${size}\0`).update(readAt(fd, 0, SAMPLE_BYTES));
    h.update(full ? readAt(fd, 0, size) : readAt(fd, size - SAMPLE_BYTES, SAMPLE_BYTES));
    const hash = `sha1:${h.digest("hex")}`;
    const hash_scope = full ? "full" : "sampled";
    return { path: p, state: "present", size, mtime_ms: Math.floor(st.mtimeMs), hash, hash_scope };
  } catch {
    return { ...base, state: "unreadable" };
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Modified files fingerprinted per checkpoint (the newest ones). */
export const DRIFT_MAX_FILES = 30;

/** Work-tree-relative, forward-slash form of the paths inside the work tree. */
export function repoRelative(repo: GitRepo, cwd: string, paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const rel = path.relative(repo.workTree, resolveWorkspacePath(cwd, p));
    if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) out.push(rel.split(path.sep).join("/"));
  }
  return out;
}

/** The checkout at `cwd` now; `reuse`: a clean reading of moments ago stands for the files not in `priority`. */
export function gitNow(cwd: string, priority: readonly string[], reuse: boolean): (WorkspaceGit & { repo: GitRepo }) | null {
  const repo = findGitRepo(cwd);
  if (!repo) return null;
  const { branch, head } = readGitHead(repo);
  const oidBytes = head && head.length === 64 ? 32 : 20;
  const reused = reuse && recentlyClean(repo.gitDir, head);
  const dirty = workTreeDirty(repo.gitDir, repo.workTree, repoRelative(repo, cwd, priority), oidBytes, reused);
  if (reuse && !reused) noteReading(repo.gitDir, head, dirty);
  return { repo, branch, head, dirty };
}

export function readGitState(cwd: string, priority: readonly string[]): WorkspaceGit | null {
  const now = gitNow(cwd, priority, true);
  return now && { branch: now.branch, head: now.head, dirty: now.dirty };
}

export function recordWorkspace(cwd: string | null | undefined, filesModified: readonly string[], maxFiles = DRIFT_MAX_FILES): WorkspaceSnapshot | null {
  try {
    if (!cwd || !path.isAbsolute(cwd) || !isDirectory(cwd)) return null;
    const chosen = filesModified.slice(Math.max(0, filesModified.length - Math.max(0, maxFiles)));
    return {
      cwd,
      files: chosen.map((p) => fingerprintFile(cwd, p)),
      files_omitted: filesModified.length - chosen.length,
      git: readGitState(cwd, chosen),
    };
  } catch (e) {
    debugLog("workspace drift record", e);
    return null;
  }
}

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
