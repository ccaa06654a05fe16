/**
 * The optional `workspace` block of a checkpoint (issue 17): what the files the session modified
 * and the git checkout looked like when the checkpoint was written, so a restore can say what
 * moved since. Everything here is a fact read from disk, never captured text.
 */

/** How a file's content hash was taken. */
export const HASH_SCOPES = ["full", "sampled", "none"] as const;
export type HashScope = (typeof HASH_SCOPES)[number];

/** present: a regular file; missing: no such path; other: not a regular file; unreadable: stat/read failed. */
export const FILE_STATES = ["present", "missing", "other", "unreadable"] as const;
export type FileState = (typeof FILE_STATES)[number];

export interface WorkspaceFile {
  /** as listed in `resources.files_modified` (relative to `cwd`, or absolute) */
  path: string;
  state: FileState;
  /** bytes; null unless present */
  size: number | null;
  /** whole milliseconds since the epoch; null unless present */
  mtime_ms: number | null;
  /** "sha1:<hex>" of the content (scope full) or of size + head + tail (scope sampled); null otherwise */
  hash: string | null;
  hash_scope: HashScope;
}

export interface WorkspaceGit {
  /** branch name HEAD points at; null when detached or unknown */
  branch: string | null;
  /** commit id HEAD resolves to; null when the branch has no commit yet or refs are unreadable */
  head: string | null;
  /** a tracked file differs from the index (or a conflict); null when not checked (index too large, unreadable) */
  dirty: boolean | null;
}

export interface WorkspaceSnapshot {
  /** absolute working directory the paths are relative to */
  cwd: string;
  files: WorkspaceFile[];
  /** modified files not recorded because of the cap (the oldest ones) */
  files_omitted: number;
  /** null: cwd is not inside a git work tree */
  git: WorkspaceGit | null;
}
