/**
 * The checkpoint's git state reuses a clean reading of the same repository for CLEAN_REUSE_MS
 * (src/agents/drift/git-index.ts): on a real git repository, what it still sees at once (the
 * session's own files, a commit, a staged change), what it sees only after the window, and that
 * a dirty reading is never reused.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readGitState } from "../../src/agents/drift/record.js";
import { CLEAN_REUSE_MS, recentlyClean } from "../../src/agents/drift/git-index.js";
import { processServices } from "../../src/infra/process-services.js";
import { findGitRepo } from "../../src/agents/drift/git-index.js";
import { type GitFixture, gitFixture, gitSaysDirty } from "./git-fixture.js";

let f: GitFixture;
beforeEach(() => {
  processServices().cleanReadings?.clear();
  f = gitFixture({ "a.txt": "a\n", "b.txt": "b\n", "src/c.ts": "c\n" });
});
afterEach(() => f.cleanup());

const gitDir = () => findGitRepo(f.dir)!.gitDir;

describe("the checkpoint's git state", () => {
  it("reuses a clean reading, and still sees the session's own files, a commit and an index change at once", () => {
    expect(readGitState(f.dir, ["a.txt"])!.dirty).toBe(false);
    const head = readGitState(f.dir, [])!.head;
    expect(recentlyClean(gitDir(), head)).toBe(true);
    // the session's own file is examined every time
    f.write("a.txt", "a changed\n");
    expect(gitSaysDirty(f)).toBe(true);
    expect(readGitState(f.dir, ["a.txt"])!.dirty).toBe(true);
    // a commit moves HEAD (and rewrites the index): the whole tree is read again
    f.commitAll("second");
    expect(readGitState(f.dir, [])!.dirty).toBe(false);
    f.write("b.txt", "b changed\n");
    f.git("add", "b.txt");
    f.write("b.txt", "b changed again\n");
    // staging rewrote the index: no reuse, the other file's change is found
    expect(readGitState(f.dir, [])!.dirty).toBe(true);
  });

  it("a change outside the session's files shows once the window has passed; a dirty reading is not kept", () => {
    expect(readGitState(f.dir, [])!.dirty).toBe(false);
    const head = readGitState(f.dir, [])!.head;
    f.write("src/c.ts", "c changed\n");
    expect(gitSaysDirty(f)).toBe(true);
    expect(recentlyClean(gitDir(), head, Date.now() + CLEAN_REUSE_MS + 1)).toBe(false);
    expect(readGitState(f.dir, [])!.dirty).toBe(true);
    expect(recentlyClean(gitDir(), head)).toBe(false);
    expect(readGitState(f.dir, [])!.dirty).toBe(true);
  });
});
