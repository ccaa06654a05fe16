/** A checkout's location, branch and HEAD read from its files without spawning git; unreadable is null. */
import { isDirectory } from "../../infra/fs-ops.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";
import path from "node:path";
import { inflateSync } from "node:zlib";

export interface GitRepo {
  /** the work tree root (the directory holding `.git`) */
  workTree: string;
  /** per-worktree git dir (HEAD, index) */
  gitDir: string;
  /** shared git dir (refs, packed-refs, objects); equal to gitDir outside linked worktrees */
  commonDir: string;
}

const MAX_ASCENT = 64;
/** Files read here are tiny; anything larger is not a git file. */
const SMALL_FILE_MAX = 64 * 1024;
/** packed-refs can be large in big repositories; beyond this a packed branch is "unknown". */
const PACKED_REFS_MAX = 8 * 1024 * 1024;
const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const REF_LINE = /^ref:\s*(\S+)$/;

function readSmall(file: string, max = SMALL_FILE_MAX): string | null {
  return readSmallRegularFileSync(file, max)?.toString("utf8") ?? null;
}

/** The git dir a `.git` entry designates: the directory itself or the target of a `gitdir:` file. */
function gitDirOf(dotGit: string): string | null {
  if (isDirectory(dotGit)) return dotGit;
  const text = readSmall(dotGit);
  const m = text ? /^gitdir:[ \t]*(.+?)[ \t]*\r?$/m.exec(text) : null;
  if (!m?.[1]) return null;
  const target = path.resolve(path.dirname(dotGit), m[1]);
  return isDirectory(target) ? target : null;
}

/** The repository whose work tree contains `cwd`, or null. */
export function findGitRepo(cwd: string): GitRepo | null {
  for (let dir = path.resolve(cwd), i = 0; i < MAX_ASCENT; dir = path.dirname(dir), i++) {
    const gitDir = gitDirOf(path.join(dir, ".git"));
    if (gitDir && readSmall(path.join(gitDir, "HEAD")) !== null) {
      const common = readSmall(path.join(gitDir, "commondir"))?.trim();
      const commonDir = common ? path.resolve(gitDir, common) : gitDir;
      return { workTree: dir, gitDir, commonDir: isDirectory(commonDir) ? commonDir : gitDir };
    }
    if (path.dirname(dir) === dir) return null;
  }
  return null;
}

function packedRef(repo: GitRepo, ref: string): string | null {
  const text = readSmall(path.join(repo.commonDir, "packed-refs"), PACKED_REFS_MAX) ?? "";
  for (const line of text.split(/\r?\n/)) {
    const oid = line.endsWith(` ${ref}`) ? line.slice(0, -ref.length - 1) : "";
    if (OID_RE.test(oid)) return oid;
  }
  return null;
}

/** A ref's commit id: loose in the worktree's git dir, then the shared one, then packed-refs. */
export function resolveRef(repo: GitRepo, ref: string, depth = 0): string | null {
  if (depth > 5 || !/^refs\/[^\0\s]+$/.test(ref) || ref.split("/").includes("..")) return null;
  for (const dir of repo.gitDir === repo.commonDir ? [repo.gitDir] : [repo.gitDir, repo.commonDir]) {
    const text = readSmall(path.join(dir, ref))?.trim();
    if (!text) continue;
    if (OID_RE.test(text)) return text;
    const sym = REF_LINE.exec(text)?.[1];
    if (sym) return resolveRef(repo, sym, depth + 1);
  }
  return packedRef(repo, ref);
}

/** Branch and commit of HEAD. A detached HEAD has branch null; an unborn branch has head null. */
export function readGitHead(repo: GitRepo): { branch: string | null; head: string | null } {
  const text = readSmall(path.join(repo.gitDir, "HEAD"))?.trim() ?? "";
  if (OID_RE.test(text)) return { branch: null, head: text };
  const ref = REF_LINE.exec(text)?.[1];
  // reftable repositories keep HEAD pointing at this placeholder; their refs are not read here
  if (!ref || ref === "refs/heads/.invalid") return { branch: null, head: null };
  return { branch: ref.replace(/^refs\/heads\//, ""), head: resolveRef(repo, ref) };
}

/** How far HEAD moved along first parents in LOOSE commits; a packed one or WALK_MAX steps: unknown. */
export const WALK_MAX = 200;
const COMMIT_OBJECT_MAX = 1024 * 1024;

/** First parent of a loose commit; undefined: not loose or unreadable; null: a root commit. */
function firstParent(repo: GitRepo, oid: string): string | null | undefined {
  const file = path.join(repo.commonDir, "objects", oid.slice(0, 2), oid.slice(2));
  const raw = readSmallRegularFileSync(file, COMMIT_OBJECT_MAX);
  if (!raw) return undefined;
  let body: Buffer;
  try {
    body = inflateSync(raw, { maxOutputLength: COMMIT_OBJECT_MAX * 4 });
  } catch {
    return undefined;
  }
  const nul = body.indexOf(0);
  if (nul < 0 || !body.toString("latin1", 0, nul).startsWith("commit ")) return undefined;
  // headers end at the first blank line; "parent" lines follow "tree"
  const headerEnd = body.indexOf("\n\n", nul);
  const headers = body.toString("latin1", nul + 1, headerEnd < 0 ? body.length : headerEnd);
  const m = /^parent ([0-9a-f]{40}|[0-9a-f]{64})$/m.exec(headers);
  return m?.[1] ?? null;
}

/** Steps from `from` back to `to` along first parents, or null when not found within the bounds. */
function distance(repo: GitRepo, from: string, to: string): number | null {
  let cur: string | null | undefined = from;
  for (let n = 0; n <= WALK_MAX; n++) {
    if (cur === to) return n;
    if (!cur) return null;
    cur = firstParent(repo, cur);
  }
  return null;
}

/** Commits HEAD moved forward (new commits on top of the old HEAD) or back (reset to an ancestor). */
export function headMove(repo: GitRepo, from: string, to: string): { ahead: number | null; behind: number | null } {
  const ahead = distance(repo, to, from);
  if (ahead !== null) return { ahead, behind: null };
  return { ahead: null, behind: distance(repo, from, to) };
}
