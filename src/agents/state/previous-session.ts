/**
 * A previous session's uncheckpointed state files (spec §7.3, §12) are HELD, renamed to
 * `previous.<stamp>.<name>.json` so this session's writes cannot replace them, until bundled.
 */
import path from "node:path";
import type { FsOps } from "../../infra/fs-ops.js";
import { errorCode } from "../../infra/fs-ops.js";
import { STATE_FILE_NAMES, fileStamp, freePath, moveAside, readStateFileAt, stateFilePath } from "./state-files.js";
import type { StateFileName } from "./state-files.js";

const HELD_RE = /^previous\.(\d{8}T\d{9}Z(?:-\d+)?)\.([a-z_]+)\.json$/;

export interface HeldFile {
  name: StateFileName;
  path: string;
  data: unknown;
  updatedAt: string;
}

/** The held files of one earlier session id, read and envelope-checked. */
export interface HeldSession {
  sessionId: string | null;
  /** one per state file name (the newest hold when a name was held twice) */
  files: HeldFile[];
  /** every held path of this session, released together once bundled */
  paths: string[];
  /** newest updated_at of its files */
  updatedAt: string;
}

export interface HeldState {
  /** oldest session first */
  sessions: HeldSession[];
  /** held files that are no longer valid state files ("name (reason)"): moved to stale/ */
  invalid: string[];
}

/** Holds other sessions' state files newer than `latestCheckpointAt`; one that cannot be renamed is moved aside later. */
export async function holdPreviousSessionFiles(
  fs: FsOps,
  dir: string,
  exp: { sessionKey: string; sessionId: string | null; latestCheckpointAt: string | null },
  now: Date = new Date(),
): Promise<StateFileName[]> {
  const held: StateFileName[] = [];
  const stamp = fileStamp(now);
  for (const name of STATE_FILE_NAMES) {
    // sessionId null: any session's file is "ok" here; the age check still applies
    const file = stateFilePath(dir, name);
    const loaded = await readStateFileAt(fs, file, { sessionKey: exp.sessionKey, sessionId: null, latestCheckpointAt: exp.latestCheckpointAt });
    if (loaded.kind !== "ok" || loaded.sessionId === exp.sessionId) continue;
    try {
      const dest = await freePath(fs, (n) => path.join(dir, `previous.${stamp}${n}.${name}.json`));
      await fs.rename(file, dest);
      held.push(name);
    } catch {
      // stays in place: not bundled this time, never merged into this session
    }
  }
  return held;
}

/** Every held file in `dir`, grouped by the session id in its envelope. Invalid ones go to stale/. */
export async function readHeldSessions(fs: FsOps, dir: string, sessionKey: string): Promise<HeldState> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return { sessions: [], invalid: [] };
    throw err;
  }
  const bySession = new Map<string, HeldSession>();
  const invalid: string[] = [];
  // fixed-width stamps: lexical order is chronological
  for (const entry of entries.sort()) {
    const m = HELD_RE.exec(entry);
    if (!m || !(STATE_FILE_NAMES as readonly string[]).includes(m[2]!)) continue;
    const file = path.join(dir, entry);
    const loaded = await readStateFileAt(fs, file, { sessionKey, sessionId: null, latestCheckpointAt: null });
    if (loaded.kind !== "ok") {
      if (loaded.kind === "stale") {
        invalid.push(`${entry} (${loaded.reason})`);
        await moveAside(fs, dir, entry.slice(0, -".json".length), new Date());
      }
      continue;
    }
    const key = JSON.stringify(loaded.sessionId);
    let s = bySession.get(key);
    if (!s) {
      s = { sessionId: loaded.sessionId, files: [], paths: [], updatedAt: loaded.updatedAt };
      bySession.set(key, s);
    }
    const name = m[2] as StateFileName;
    s.files = [...s.files.filter((f) => f.name !== name), { name, path: file, data: loaded.data, updatedAt: loaded.updatedAt }];
    s.paths.push(file);
    if (Date.parse(loaded.updatedAt) > Date.parse(s.updatedAt)) s.updatedAt = loaded.updatedAt;
  }
  const sessions = [...bySession.values()].sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
  return { sessions, invalid };
}

/** After the bundle is durable: the held copies go (a failed unlink is retried by the next load). */
export async function releaseHeld(fs: FsOps, session: HeldSession): Promise<void> {
  for (const p of session.paths) await fs.unlink(p).catch(() => undefined);
}

