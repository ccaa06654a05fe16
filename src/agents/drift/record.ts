/** The workspace at checkpoint time: the newest modified files' fingerprints and git's branch, HEAD, dirty. */
import path from "node:path";
import { debugLog } from "../../infra/debug-log.js";
import { fingerprintFile, resolveWorkspacePath } from "./fingerprint.js";
import { noteReading, recentlyClean, workTreeDirty } from "./git-index.js";
import { isDirectory } from "../../infra/fs-ops.js";
import { findGitRepo, type GitRepo, readGitHead } from "./git-repo.js";
import type { WorkspaceGit, WorkspaceSnapshot } from "../checkpoint/schema.js";

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
