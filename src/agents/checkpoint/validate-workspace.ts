/**
 * Validation of the optional `workspace` block (absent -> undefined). Same contract as the rest
 * of the schema: a bad field is a CheckpointError naming the file and the field path.
 */
import { CheckpointError } from "./errors.js";
import { FILE_STATES, HASH_SCOPES, type WorkspaceFile, type WorkspaceGit, type WorkspaceSnapshot } from "./schema.js";

type Obj = Record<string, unknown>;

const HASH_RE = /^sha1:[0-9a-f]{40}$/;
const OID_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export function validateWorkspace(root: Obj, file: string): WorkspaceSnapshot | undefined {
  const raw = root.workspace;
  if (raw === undefined) return undefined;
  const fail = (field: string, detail: string): never => {
    throw new CheckpointError(file, field, detail);
  };
  const obj = (v: unknown, field: string): Obj =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : fail(field, "expected a mapping");
  const str = (v: unknown, field: string): string => (typeof v === "string" ? v : fail(field, "expected a string"));
  const nullable = <T>(v: unknown, field: string, f: (v: unknown, field: string) => T): T | null => (v === null ? null : f(v, field));
  const count = (v: unknown, field: string): number =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : fail(field, "expected a non-negative integer");
  const oneOf = <T extends string>(v: unknown, field: string, allowed: readonly T[]): T =>
    typeof v === "string" && (allowed as readonly string[]).includes(v) ? (v as T) : fail(field, `expected one of ${allowed.join("|")}`);
  const matching = (re: RegExp, what: string) => (v: unknown, field: string): string => {
    const s = str(v, field);
    return re.test(s) ? s : fail(field, `expected ${what}`);
  };

  const w = obj(raw, "workspace");
  const cwd = str(w.cwd, "workspace.cwd");
  if (!Array.isArray(w.files)) fail("workspace.files", "expected a list");
  const files: WorkspaceFile[] = (w.files as unknown[]).map((item, i) => {
    const f = `workspace.files[${i}]`;
    const e = obj(item, f);
    return {
      path: str(e.path, `${f}.path`),
      state: oneOf(e.state, `${f}.state`, FILE_STATES),
      size: nullable(e.size, `${f}.size`, count),
      mtime_ms: nullable(e.mtime_ms, `${f}.mtime_ms`, count),
      hash: nullable(e.hash, `${f}.hash`, matching(HASH_RE, "sha1:<40 hex>")),
      hash_scope: oneOf(e.hash_scope, `${f}.hash_scope`, HASH_SCOPES),
    };
  });
  let git: WorkspaceGit | null = null;
  if (w.git !== null) {
    const g = obj(w.git, "workspace.git");
    const dirty = g.dirty;
    if (dirty !== null && typeof dirty !== "boolean") fail("workspace.git.dirty", "expected true, false or null");
    git = {
      branch: nullable(g.branch, "workspace.git.branch", str),
      head: nullable(g.head, "workspace.git.head", matching(OID_RE, "a commit id")),
      dirty: dirty as boolean | null,
    };
  }
  return { cwd, files, files_omitted: count(w.files_omitted, "workspace.files_omitted"), git };
}
