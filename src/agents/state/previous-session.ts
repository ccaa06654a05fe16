/**
 * A previous session's uncheckpointed state files (spec §7.3, §12) are HELD, renamed to
 * `previous.<stamp>.<name>.json` so this session's writes cannot replace them, until bundled
 * under the key's cross-process bundle lock.
 */
import { hostname } from "node:os";
import path from "node:path";
import { readTextCapped } from "../../infra/regular-file.js";
import { errorCode, type FsOps } from "../../infra/fs-ops.js";
import { STATE_FILE_NAMES, fileStamp, freePath, judgeStateFile, moveAside, readStateEnvelope } from "./state-files.js";
import { stateFilePath } from "./state-files.js";
import type { LoadExpectations, StateFileName } from "./state-files.js";

const HELD_RE = /^previous\.(\d{8}T\d{9}Z(?:-\d+)?)\.([a-z_]+)\.json$/;

/** The held files of one earlier session id, read and envelope-checked. */
interface HeldSession {
  sessionId: string | null;
  /** one per state file name (the newest hold when a name was held twice) */
  files: Array<{ name: StateFileName; data: unknown }>;
  /** every held path of this session, released together once bundled */
  paths: string[];
  /** newest updated_at of its files */
  updatedAt: string;
}

/** Holds other sessions' state files newer than `latestCheckpointAt`; one that cannot be renamed is moved aside later. */
export async function holdPreviousSessionFiles(fs: FsOps, dir: string, exp: LoadExpectations, now = new Date()) {
  const stamp = fileStamp(now);
  for (const name of STATE_FILE_NAMES) {
    // sessionId null: any session's file is "ok" here; the age check still applies
    const file = stateFilePath(dir, name);
    const loaded = judgeStateFile(await readStateEnvelope(fs, file), { ...exp, sessionId: null });
    if (loaded.kind !== "ok" || loaded.sessionId === exp.sessionId) continue;
    const dest = (n: string): string => path.join(dir, `previous.${stamp}${n}.${name}.json`);
    // one that cannot be renamed stays in place: not bundled this time, never merged into this session
    await freePath(fs, dest).then((to) => fs.rename(file, to)).catch(() => undefined);
  }
}

/**
 * Every held file in `dir`, grouped by the session id in its envelope, oldest session first; invalid
 * ones ("name (reason)") go to stale/.
 */
export async function readHeldSessions(fs: FsOps, dir: string, sessionKey: string) {
  const entries = await fs.readdir(dir).catch((err: unknown) => {
    if (errorCode(err) === "ENOENT") return [] as string[];
    throw err;
  });
  const bySession = new Map<string | null, HeldSession>();
  const invalid: string[] = [];
  const exp = { sessionKey, sessionId: null, latestCheckpointAt: null };
  // fixed-width stamps: lexical order is chronological
  for (const entry of entries.sort()) {
    const m = HELD_RE.exec(entry);
    if (!m || !(STATE_FILE_NAMES as readonly string[]).includes(m[2]!)) continue;
    const file = path.join(dir, entry);
    const loaded = judgeStateFile(await readStateEnvelope(fs, file), exp);
    if (loaded.kind === "stale") {
      invalid.push(`${entry} (${loaded.reason})`);
      await moveAside(fs, dir, entry.slice(0, -".json".length), new Date());
    }
    if (loaded.kind !== "ok") continue;
    const { sessionId, updatedAt } = loaded;
    const s = bySession.get(sessionId) ?? { sessionId, files: [], paths: [], updatedAt };
    bySession.set(sessionId, s);
    const name = m[2] as StateFileName;
    s.files = [...s.files.filter((f) => f.name !== name), { name, data: loaded.data }];
    s.paths.push(file);
    if (Date.parse(updatedAt) > Date.parse(s.updatedAt)) s.updatedAt = updatedAt;
  }
  const sessions = [...bySession.values()].sort((a, b) => Date.parse(a.updatedAt) - Date.parse(b.updatedAt));
  return { sessions, invalid };
}

/** After the bundle is durable: the held copies go (a failed unlink is retried by the next load). */
export async function releaseHeld(fs: FsOps, session: HeldSession): Promise<void> {
  for (const p of session.paths) await fs.unlink(p).catch(() => undefined);
}

/**
 * Cross-process lock of one key's bundling, `<state dir>/bundle.lock` = `{pid, host, at}`: a live
 * holder is waited for, then bundling skipped (the files stay held); a stale one is taken; without
 * a lock file (read-only disk) a duplicate bundle is possible, a loss is not.
 */
export const BUNDLE_LOCK_FILE = "bundle.lock";
/** a lock this old is stale whoever holds it (a bundle takes ms; a hung process must not block a key) */
export const LOCK_STALE_MS = 30_000;
/** how long a session start waits for another process's bundling */
export const LOCK_WAIT_MS = 3_000;
const POLL_MS = 10;

type LockBody = { pid: number; host: string; at: number };

/** held (`waited`: another process may have bundled meanwhile); busy past LOCK_WAIT_MS; unlocked: no lock file */
type BundleLock =
  | { kind: "held"; waited: boolean; release(): Promise<void> }
  | { kind: "busy"; holder: string }
  | { kind: "unlocked"; reason: string };

/** `alive`: is `pid` a live process on this host (tests replace it) */
type LockOptions = { now?: () => number; waitMs?: number; alive?: (pid: number) => boolean };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, owned by someone else
    return errorCode(e) === "EPERM";
  }
}

function parseBody(text: string): LockBody | null {
  try {
    const b = JSON.parse(text) as Partial<LockBody>;
    return Number.isInteger(b.pid) && typeof b.host === "string" && typeof b.at === "number" ? (b as LockBody) : null;
  } catch {
    return null;
  }
}

/** A lock body is ~80 bytes; anything else there (a FIFO, /dev/zero, a huge file) is not read. */
const LOCK_MAX_BYTES = 4096;
const readLockFile = (fs: FsOps, file: string): Promise<string> => readTextCapped(fs, file, LOCK_MAX_BYTES);

export async function acquireBundleLock(fs: FsOps, dir: string, opts: LockOptions = {}): Promise<BundleLock> {
  const now = opts.now ?? Date.now;
  const alive = opts.alive ?? isAlive;
  const file = path.join(dir, BUNDLE_LOCK_FILE);
  const deadline = now() + (opts.waitMs ?? LOCK_WAIT_MS);
  const me: LockBody = { pid: process.pid, host: hostname(), at: now() };
  const mine = JSON.stringify(me);
  let waited = false;
  for (;;) {
    try {
      await fs.writeFile(file, mine, { flag: "wx", mode: 0o600 });
      return {
        kind: "held",
        waited,
        // only our own lock: a stale-lock breaker may have replaced it after LOCK_STALE_MS (gone
        // already, or unreadable: a later session treats it as stale)
        release: async () => {
          if ((await readLockFile(fs, file).catch(() => null)) === mine) await fs.unlink(file).catch(() => undefined);
        },
      };
    } catch (e) {
      if (errorCode(e) !== "EEXIST") return { kind: "unlocked", reason: errorCode(e) ?? String(e) };
    }
    let text: string;
    let mtime: number;
    try {
      text = await readLockFile(fs, file);
      mtime = (await fs.stat(file)).mtimeMs;
    } catch (e) {
      if (errorCode(e) === "ENOENT") continue; // released in between: try again
      return { kind: "unlocked", reason: errorCode(e) ?? String(e) };
    }
    const body = parseBody(text);
    const age = now() - (body?.at ?? mtime);
    // our own pid: left by an earlier run (bundling is serialized per key in a process); torn
    // (created, never written): stale by the file's age
    const gone = body !== null && body.host === me.host && (body.pid === process.pid || !alive(body.pid));
    if (gone || age > LOCK_STALE_MS || (body === null && now() - mtime > POLL_MS * 100)) {
      // remove exactly the stale lock we read, not one a faster process has just taken (or removed first)
      if ((await readLockFile(fs, file).catch(() => null)) === text) await fs.unlink(file).catch(() => undefined);
      continue;
    }
    if (now() >= deadline) return { kind: "busy", holder: body ? `pid ${body.pid} on ${body.host}` : "unknown" };
    waited = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
