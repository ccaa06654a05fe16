/**
 * A clean work tree's reading, reused for a moment. Proving a work tree clean costs one lstat per
 * index entry (~3.5 ms for 600 files); compactions that follow each other in one repository (the
 * provider's calls, several sessions on one checkout) would each pay it again. A reading is reused
 * only while HEAD and the index file (size, mtime, ctime, inode) are unchanged and for at most
 * CLEAN_REUSE_MS; the caller still examines its own priority paths (the session's modified files)
 * every time. A dirty or unknown reading is never reused: the scan of a dirty tree stops at its
 * first change, so it is cheap anyway.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { processServices } from "../../infra/process-services.js";

export const CLEAN_REUSE_MS = 2_000;
const MAX_READINGS = 32;

interface CleanReading {
  at: number;
  head: string | null;
  index: string;
}

// by git dir, the oldest first (at most MAX_READINGS)
declare module "../../infra/process-services.js" {
  interface ProcessServices { cleanReadings?: Map<string, CleanReading> }
}

const readings = (): Map<string, CleanReading> => (processServices().cleanReadings ??= new Map());

/** What of the index file a change to the index changes; null when it cannot be read. */
function indexStamp(gitDir: string): string | null {
  try {
    const st = statSync(path.join(gitDir, "index"), { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : null;
  } catch {
    return null;
  }
}

/** Whether `gitDir`'s work tree was read clean within CLEAN_REUSE_MS, with the same HEAD and index. */
export function recentlyClean(gitDir: string, head: string | null, now = Date.now()): boolean {
  const r = readings().get(gitDir);
  if (!r) return false;
  if (now - r.at > CLEAN_REUSE_MS || r.head !== head || r.index !== indexStamp(gitDir)) {
    readings().delete(gitDir);
    return false;
  }
  return true;
}

/** Records a whole-tree reading: a clean one is kept, any other forgets the previous. */
export function noteReading(gitDir: string, head: string | null, dirty: boolean | null, now = Date.now()): void {
  const map = readings();
  map.delete(gitDir);
  if (dirty !== false) return;
  const index = indexStamp(gitDir);
  if (index === null) return;
  map.set(gitDir, { at: now, head, index });
  if (map.size > MAX_READINGS) map.delete(map.keys().next().value!);
}

/** Test seam: forget every reading. */
export function forgetCleanReadings(): void {
  readings().clear();
}
