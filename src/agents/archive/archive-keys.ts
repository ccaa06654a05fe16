/**
 * Which session key an archive directory belongs to (its name keeps only a prefix and a hash): a
 * `key.json` sidecar written once per process, through which cross-session search lists an agent's keys.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../../infra/atomic-file.js";
import { makeDirs } from "../../infra/make-dirs.js";
import { archiveDir, archiveRoot } from "./store.js";
import { readRegularFile } from "../../infra/regular-file.js";

const KEY_FILE = "key.json";
const written = new Set<string>();

/** Records the key and agent of the key's archive directory (once per process). */
export async function recordArchiveKey(stateDir: string, sessionKey: string, agent: string | null): Promise<void> {
  const dir = archiveDir(stateDir, sessionKey);
  if (written.has(dir)) return;
  await makeDirs(dir, 0o700);
  await writeFileAtomic(path.join(dir, KEY_FILE), `${JSON.stringify({ v: 1, sessionKey, agent })}\n`, { mode: 0o600 });
  written.add(dir);
}

/** Keys of `agent` with an archive directory under `stateDir` (their key.json), `except` left out. */
export async function archiveKeysOfAgent(stateDir: string, agent: string, except: string): Promise<string[]> {
  let dirs: string[];
  try {
    dirs = await fsp.readdir(archiveRoot(stateDir));
  } catch {
    return [];
  }
  const out: string[] = [];
  const self = archiveDir(stateDir, except);
  for (const d of dirs) {
    const dir = path.join(archiveRoot(stateDir), d);
    if (dir === self) continue;
    try {
      const v = JSON.parse(await readRegularFile(path.join(dir, KEY_FILE), "utf8")) as { sessionKey?: unknown; agent?: unknown };
      if (typeof v.sessionKey === "string" && v.agent === agent && archiveDir(stateDir, v.sessionKey) === dir) out.push(v.sessionKey);
    } catch {
      // no sidecar (never checkpointed) or unreadable: not listed
    }
  }
  return out.sort();
}
