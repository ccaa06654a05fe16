/** mkdir -p without `{ recursive: true }`, which loops forever under /proc and /sys (Node 20, 24). */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { errorCode, type FsOps, isDirectory, nodeFsOps } from "./fs-ops.js";

/** Deeper than any real state dir; bounds the recursion on a hostile path. */
const MAX_LEVELS = 256;

export async function makeDirs(dir: string, mode: number, fs: Pick<FsOps, "mkdir" | "stat"> = nodeFsOps): Promise<void> {
  /** Makes `dir`; on ENOENT its parent first, then `dir` once more. */
  const makeLevel = async (dir: string, level: number): Promise<void> => {
    for (let again = false; ; again = true) {
      try {
        await fs.mkdir(dir, { mode });
        return;
      } catch (err) {
        const isDir = errorCode(err) === "EEXIST" && (await fs.stat(dir).catch(() => null))?.isDirectory();
        if (stands(dir, err, isDir, again, level)) return;
        await makeLevel(path.dirname(dir), level + 1);
      }
    }
  };
  await makeLevel(path.resolve(dir), 0);
}

export function makeDirsSync(dir: string, mode: number): void {
  const makeLevel = (dir: string, level: number): void => {
    for (let again = false; ; again = true) {
      try {
        mkdirSync(dir, { mode });
        return;
      } catch (err) {
        if (stands(dir, err, errorCode(err) === "EEXIST" && isDirectory(dir), again, level)) return;
        makeLevel(path.dirname(dir), level + 1);
      }
    }
  };
  makeLevel(path.resolve(dir), 0);
}

/**
 * After mkdir(dir) failed: true when it stands (EEXIST on a directory or a link to one), false to
 * make the parent and try once more; throws otherwise (a file in the way is the error).
 */
function stands(dir: string, err: unknown, isDir: boolean | undefined, again: boolean, level: number): boolean {
  if (isDir) return true;
  const code = errorCode(err);
  if (code === "EEXIST") {
    const msg = `cannot make directory ${JSON.stringify(dir)}: a file that is not a directory is in the way`;
    throw Object.assign(new Error(msg), { code: "ENOTDIR", cause: err });
  }
  if (code !== "ENOENT" || again || path.dirname(dir) === dir || level >= MAX_LEVELS) throw err;
  return false;
}
