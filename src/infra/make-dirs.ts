/** mkdir -p without `{ recursive: true }`, which loops forever under /proc and /sys (Node 20, 24). */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { errorCode as codeOf, type FsOps, isDirectory, nodeFsOps } from "./fs-ops.js";

/** Deeper than any real state dir; bounds the recursion on a hostile path. */
const MAX_LEVELS = 256;

type DirOps = Pick<FsOps, "mkdir" | "stat">;

export async function makeDirs(dir: string, mode: number, fs: DirOps = nodeFsOps): Promise<void> {
  await makeLevel(path.resolve(dir), mode, fs, 0);
}

/** Makes `dir`; on ENOENT its parent first, then `dir` once more. */
async function makeLevel(dir: string, mode: number, fs: DirOps, level: number): Promise<void> {
  for (let again = false; ; again = true) {
    try {
      await fs.mkdir(dir, { mode });
      return;
    } catch (err) {
      const code = codeOf(err);
      if (code === "EEXIST") return existingDirectory(dir, err, (await fs.stat(dir).catch(() => null))?.isDirectory());
      const parent = path.dirname(dir);
      if (code !== "ENOENT" || again || parent === dir || level >= MAX_LEVELS) throw err;
      await makeLevel(parent, mode, fs, level + 1);
    }
  }
}

export function makeDirsSync(dir: string, mode: number): void {
  makeLevelSync(path.resolve(dir), mode, 0);
}

function makeLevelSync(dir: string, mode: number, level: number): void {
  for (let again = false; ; again = true) {
    try {
      mkdirSync(dir, { mode });
      return;
    } catch (err) {
      const code = codeOf(err);
      if (code === "EEXIST") return existingDirectory(dir, err, isDirectory(dir));
      const parent = path.dirname(dir);
      if (code !== "ENOENT" || again || parent === dir || level >= MAX_LEVELS) throw err;
      makeLevelSync(parent, mode, level + 1);
    }
  }
}

/** EEXIST is success only for a directory (or a link to one); a file in the way is the error. */
function existingDirectory(dir: string, err: unknown, isDir: boolean | undefined): void {
  if (isDir) return;
  throw Object.assign(new Error(`cannot make directory ${JSON.stringify(dir)}: a file that is not a directory is in the way`), {
    code: "ENOTDIR",
    cause: err,
  });
}
