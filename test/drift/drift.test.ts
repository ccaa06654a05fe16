/**
 * Workspace drift on a real git repository in a temp dir: what recordWorkspace writes at checkpoint
 * time and what compareWorkspace reports at restore, for edits, deletes, branch switches, new
 * commits, resets, worktrees, packed refs/objects, index v4 and a clean resume. Git's own answers
 * (rev-parse, status) are the ground truth for branch, HEAD and dirty.
 */
import { chmodSync, mkdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMPARE_MAX_FILES, compareWorkspace, type DriftReport } from "../../src/agents/drift/record.js";
import { HASH_FULL_MAX_BYTES } from "../../src/agents/drift/record.js";
import { findGitRepo, readGitHead } from "../../src/agents/drift/git-index.js";
import { workTreeDirty } from "../../src/agents/drift/git-index.js";
import { DRIFT_MAX_FILES, recordWorkspace } from "../../src/agents/drift/record.js";
import type { WorkspaceSnapshot } from "../../src/agents/checkpoint/schema.js";
import { type GitFixture, gitFixture, gitSaysDirty } from "./git-fixture.js";

const FILES = { "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n", "README.md": "# r\n", "docs/c.md": "c\n" };
const MODIFIED = ["src/a.ts", "src/b.ts", "notes/new.md"];

let fixtures: GitFixture[] = [];
afterEach(() => {
  for (const f of fixtures) f.cleanup();
  fixtures = [];
});

/** a repo where the "session" has edited a.ts and b.ts and created notes/new.md (untracked) */
function sessionRepo(): GitFixture {
  const f = gitFixture(FILES);
  fixtures.push(f);
  f.write("src/a.ts", "export const a = 10;\n");
  f.write("src/b.ts", "export const b = 20;\n");
  f.write("notes/new.md", "new\n");
  return f;
}

function record(f: GitFixture, files = MODIFIED): WorkspaceSnapshot {
  const snap = recordWorkspace(f.dir, files);
  expect(snap).not.toBeNull();
  return snap!;
}

const changedPaths = (r: DriftReport) => r.files.map((x) => `${x.change}:${x.path}`).sort();

describe("recordWorkspace", () => {
  it("fingerprints the modified files and reads branch, HEAD and dirty like git does", () => {
    const f = sessionRepo();
    const snap = record(f);
    expect(snap.cwd).toBe(f.dir);
    expect(snap.files.map((x) => [x.path, x.state, x.hash_scope])).toEqual([
      ["src/a.ts", "present", "full"],
      ["src/b.ts", "present", "full"],
      ["notes/new.md", "present", "full"],
    ]);
    expect(snap.files[0]!.size).toBe("export const a = 10;\n".length);
    expect(snap.files[0]!.hash).toMatch(/^sha1:[0-9a-f]{40}$/);
    expect(snap.git).toEqual({ branch: "main", head: f.git("rev-parse", "HEAD"), dirty: true });
    expect(gitSaysDirty(f)).toBe(true);
  });

  it("keeps the newest files up to the cap and counts the rest", () => {
    const f = sessionRepo();
    const many = Array.from({ length: DRIFT_MAX_FILES + 7 }, (_, i) => `gen/f${i}.txt`);
    const snap = record(f, many);
    expect(snap.files).toHaveLength(DRIFT_MAX_FILES);
    expect(snap.files_omitted).toBe(7);
    expect(snap.files.at(-1)!.path).toBe(`gen/f${DRIFT_MAX_FILES + 6}.txt`);
    expect(snap.files.every((x) => x.state === "missing")).toBe(true);
  });

  it("samples a file over the size limit and says so", () => {
    const f = sessionRepo();
    f.write("big.bin", "x".repeat(HASH_FULL_MAX_BYTES + 1));
    const snap = record(f, ["big.bin"]);
    expect(snap.files[0]).toMatchObject({ state: "present", hash_scope: "sampled", size: HASH_FULL_MAX_BYTES + 1 });
  });

  it("outside a git work tree: files only; a cwd that is not a directory: nothing", () => {
    const f = gitFixture();
    fixtures.push(f);
    const plain = join(f.root, "plain");
    mkdirSync(plain);
    writeFileSync(join(plain, "x.txt"), "x");
    expect(recordWorkspace(plain, ["x.txt"])!.git).toBeNull();
    expect(recordWorkspace(join(f.root, "nope"), ["x.txt"])).toBeNull();
    expect(recordWorkspace(null, ["x.txt"])).toBeNull();
  });

  it("does not open FIFOs or devices named in the file list", () => {
    const f = sessionRepo();
    const snap = record(f, ["/dev/zero", "src"]);
    expect(snap.files.map((x) => x.state)).toEqual(["other", "other"]);
  });
});

describe("compareWorkspace: the 100% / 0 targets", () => {
  it("a clean resume reports nothing, even after touch and a same-bytes rewrite", () => {
    const f = sessionRepo();
    const snap = record(f);
    expect(compareWorkspace(snap).drifted).toBe(false);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(f.dir, "src/a.ts"), later, later);
    f.write("src/b.ts", "export const b = 20;\n");
    const r = compareWorkspace(snap);
    expect(r.drifted).toBe(false);
    expect(r.files).toEqual([]);
    expect(r.filesChecked).toBe(3);
  });

  it("an edit outside the session, a delete and a recreated file", () => {
    const f = sessionRepo();
    const snap = record(f, [...MODIFIED, "gone-at-checkpoint.txt"]);
    f.write("src/a.ts", "export const a = 11;\n"); // same size, other content
    unlinkSync(join(f.dir, "notes/new.md"));
    f.write("gone-at-checkpoint.txt", "back\n");
    const r = compareWorkspace(snap);
    expect(r.drifted).toBe(true);
    expect(changedPaths(r)).toEqual(["changed:src/a.ts", "created:gone-at-checkpoint.txt", "deleted:notes/new.md"]);
    expect(r.files.every((x) => x.by === null)).toBe(true);
  });

  it("says which changes the session's later work made, when its capture knows", () => {
    const f = sessionRepo();
    const snap = record(f);
    f.write("src/a.ts", "export const a = 12;\n");
    f.write("src/b.ts", "export const b = 22;\n");
    const r = compareWorkspace(snap, new Set(["src/b.ts"]));
    expect(r.files.map((x) => [x.path, x.by])).toEqual([
      ["src/a.ts", "outside"],
      ["src/b.ts", "session"],
    ]);
  });

  it("branch switch, new commits (counted), reset back (counted), and the dirty flag like git's", () => {
    const f = sessionRepo();
    const snap = record(f);
    const head0 = f.git("rev-parse", "HEAD");
    f.git("checkout", "-q", "-b", "feature");
    let r = compareWorkspace(snap);
    expect(r.git).toMatchObject({ branch: { from: "main", to: "feature" }, head: null, dirty: null, dirtyNow: true });

    f.commitAll("one");
    f.write("src/c.ts", "c\n");
    const head2 = f.commitAll("two");
    r = compareWorkspace(snap);
    expect(r.git!.head).toEqual({ from: head0, to: head2, ahead: 2, behind: null });
    expect(r.git!.dirty).toEqual({ from: true, to: false });
    expect(gitSaysDirty(f)).toBe(false);
    expect(r.files).toEqual([]); // the committed files did not change content

    const snap2 = record(f);
    f.git("reset", "-q", "--hard", "HEAD~1");
    r = compareWorkspace(snap2);
    expect(r.git!.head).toMatchObject({ from: head2, ahead: null, behind: 1 });
    expect(r.files).toEqual([]); // the listed files are the same in HEAD~1
  });

  it("HEAD moved to packed objects: 'moved' without a count; packed refs still resolve", () => {
    const f = sessionRepo();
    const snap = record(f);
    f.commitAll("one");
    f.write("src/d.ts", "d\n");
    const head = f.commitAll("two");
    f.git("gc", "-q", "--prune=now");
    const repo = findGitRepo(f.dir)!;
    expect(readGitHead(repo)).toEqual({ branch: "main", head: f.git("rev-parse", "HEAD") });
    const r = compareWorkspace(snap);
    expect(r.git!.head).toMatchObject({ to: head, ahead: null, behind: null });
    expect(r.drifted).toBe(true);
  });

  it("detached HEAD", () => {
    const f = sessionRepo();
    const snap = record(f);
    f.git("checkout", "-q", "--detach");
    const r = compareWorkspace(snap);
    expect(r.git!.branch).toEqual({ from: "main", to: null });
    expect(r.git!.head).toBeNull();
  });

  it("a linked worktree (.git file with gitdir:) records its own branch and HEAD", () => {
    const f = sessionRepo();
    f.commitAll("session work");
    const wt = join(f.root, "wt");
    f.git("worktree", "add", "-q", "-b", "side", wt);
    writeFileSync(join(wt, "src/a.ts"), "export const a = 'side';\n");
    const snap = recordWorkspace(wt, ["src/a.ts"])!;
    expect(snap.git).toEqual({ branch: "side", head: f.git("rev-parse", "side"), dirty: true });
    writeFileSync(join(wt, "src/a.ts"), "export const a = 'side2';\n");
    expect(changedPaths(compareWorkspace(snap))).toEqual(["changed:src/a.ts"]);
    // the main checkout is untouched by the worktree's state
    expect(compareWorkspace(record(f)).drifted).toBe(false);
  });

  it("a missing workspace and an unreadable file are stated, never thrown", () => {
    const f = sessionRepo();
    const snap = record(f);
    rmSync(join(f.dir, "src/b.ts"));
    mkdirSync(join(f.dir, "src/b.ts")); // a directory where the file was: not a regular file
    const r = compareWorkspace(snap);
    expect(changedPaths(r)).toContain("changed:src/b.ts");
    rmSync(f.dir, { recursive: true, force: true });
    const gone = compareWorkspace(snap);
    expect(gone).toMatchObject({ workspaceFound: false, drifted: true, files: [] });
  });

  it("a hand-made record cannot make a restore slow or read against the wrong directory", () => {
    const f = sessionRepo();
    const snap = record(f);
    const huge = { ...snap, files: Array.from({ length: 100_000 }, (_, i) => ({ ...snap.files[0]!, path: `x${i}` })) };
    const r = compareWorkspace(huge);
    expect(r.filesChecked).toBe(COMPARE_MAX_FILES);
    expect(compareWorkspace({ ...snap, cwd: "repo" })).toMatchObject({ workspaceFound: false, drifted: true });
  });

  it("index version 4 (path compression) gives the same dirty answer as git", () => {
    const f = sessionRepo();
    f.git("update-index", "--index-version", "4");
    const repo = findGitRepo(f.dir)!;
    expect(workTreeDirty(repo.gitDir, repo.workTree, [], 20)).toBe(gitSaysDirty(f));
    f.commitAll("all");
    f.git("update-index", "--index-version", "4");
    expect(workTreeDirty(repo.gitDir, repo.workTree, [], 20)).toBe(false);
    expect(gitSaysDirty(f)).toBe(false);
  });
});

describe("drift matrix: every changed case detected, no report when nothing changed", () => {
  type Case = { name: string; changes: boolean; act: (f: GitFixture) => void };
  const cases: Case[] = [
    { name: "nothing", changes: false, act: () => {} },
    { name: "touch only", changes: false, act: (f) => utimesSync(join(f.dir, "src/a.ts"), new Date(Date.now() + 9000), new Date(Date.now() + 9000)) },
    { name: "same-bytes rewrite", changes: false, act: (f) => f.write("src/a.ts", "export const a = 10;\n") },
    { name: "untracked file elsewhere", changes: false, act: (f) => f.write("scratch.txt", "s") },
    { name: "unrelated tracked file touched", changes: false, act: (f) => utimesSync(join(f.dir, "README.md"), new Date(Date.now() + 9000), new Date(Date.now() + 9000)) },
    { name: "edit same size", changes: true, act: (f) => f.write("src/a.ts", "export const a = 99;\n") },
    { name: "edit other size", changes: true, act: (f) => f.write("src/b.ts", "export const b = 2000;\n") },
    { name: "append", changes: true, act: (f) => f.write("notes/new.md", "new\nmore\n") },
    { name: "delete", changes: true, act: (f) => unlinkSync(join(f.dir, "src/a.ts")) },
    { name: "branch switch", changes: true, act: (f) => f.git("checkout", "-q", "-b", "other") },
    { name: "commit", changes: true, act: (f) => void f.commitAll("c") },
    { name: "stash (tree becomes clean)", changes: true, act: (f) => f.git("stash", "-q") },
    { name: "unrelated tracked file edited (tree stays dirty)", changes: false, act: (f) => f.write("README.md", "# changed\n") },
  ];
  it.each(cases)("$name", ({ changes, act }) => {
    const f = sessionRepo();
    const snap = record(f);
    act(f);
    const r = compareWorkspace(snap);
    expect(r.drifted).toBe(changes);
    // the dirty flag agrees with git whenever it is known
    if (r.git?.dirtyNow !== null && r.git?.dirtyNow !== undefined) expect(r.git.dirtyNow).toBe(gitSaysDirty(f));
  });

  it("a clean tree: unrelated edit makes it dirty (reported), git agrees", () => {
    const f = gitFixture(FILES);
    fixtures.push(f);
    const snap = record(f, ["src/a.ts"]);
    expect(snap.git!.dirty).toBe(false);
    expect(compareWorkspace(snap).drifted).toBe(false);
    f.write("docs/c.md", "changed\n");
    const r = compareWorkspace(snap);
    expect(r.git!.dirty).toEqual({ from: false, to: true });
    expect(gitSaysDirty(f)).toBe(true);
  });

  // root reads anything: there the not-a-regular-file case above covers the unreadable path
  it.skipIf(process.getuid?.() === 0)("unreadable file (EACCES) is stated", () => {
    const f = sessionRepo();
    const snap = record(f);
    chmodSync(join(f.dir, "src/a.ts"), 0);
    expect(changedPaths(compareWorkspace(snap))).toEqual(["unreadable:src/a.ts"]);
  });
});
