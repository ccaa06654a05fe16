/** A real git repository in a temp dir (git is spawned here, in the tests only). */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: tmpdir(),
};

export interface GitFixture {
  root: string;
  dir: string;
  git(...args: string[]): string;
  write(rel: string, content: string): void;
  commitAll(message: string): string;
  cleanup(): void;
}

export function gitFixture(files: Record<string, string> = {}, prefix = "cm-drift-"): GitFixture {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = join(root, "repo");
  mkdirSync(dir);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, env: ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).replace(/\n+$/, "");
  const write = (rel: string, content: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  };
  const commitAll = (message: string) => {
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", message);
    return git("rev-parse", "HEAD");
  };
  git("init", "-q", "-b", "main");
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  if (Object.keys(files).length > 0) commitAll("initial");
  return { root, dir, git, write, commitAll, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** git's own answer: does a tracked file differ from the index (or a conflict exist)? */
export function gitSaysDirty(f: GitFixture): boolean {
  // --no-optional-locks: git does not rewrite the index (that would change what is under test)
  const out = f.git("--no-optional-locks", "status", "--porcelain", "--untracked-files=no");
  return out.split("\n").some((l) => l.length > 2 && (l[1] !== " " || l.slice(0, 2).includes("U")));
}
