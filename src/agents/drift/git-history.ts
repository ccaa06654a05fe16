/**
 * How far HEAD moved, counted along first parents in LOOSE commit objects (zlib-inflated with
 * node:zlib). Packed objects are not read: when the walk meets one, or passes WALK_MAX commits,
 * the count is unknown and the caller says "moved".
 */
import path from "node:path";
import { inflateSync } from "node:zlib";
import type { GitRepo } from "./git-repo.js";
import { readSmallRegularFileSync } from "../../infra/regular-file.js";

export const WALK_MAX = 200;
const COMMIT_OBJECT_MAX = 1024 * 1024;

/** First parent of a loose commit; undefined when the object is not loose/readable, null for a root commit. */
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

export interface HeadMove {
  /** commits HEAD moved forward (new commits on top of the old HEAD) */
  ahead: number | null;
  /** commits HEAD moved back (reset to an ancestor) */
  behind: number | null;
}

export function headMove(repo: GitRepo, oldHead: string, newHead: string): HeadMove {
  const ahead = distance(repo, newHead, oldHead);
  if (ahead !== null) return { ahead, behind: null };
  return { ahead: null, behind: distance(repo, oldHead, newHead) };
}
