/**
 * Cross-process lock of one key's previous-session bundling, `<state dir>/bundle.lock` = `{pid, host, at}`:
 * a live holder is waited for, then bundling skipped (the files stay held); a stale one is taken;
 * without a lock file (read-only disk) a duplicate bundle is possible, a loss is not.
 */
import { hostname } from "node:os";
import path from "node:path";
import { readTextCapped } from "../../infra/capped-read.js";
import { errorCode, type FsOps } from "../../infra/fs-ops.js";

export const BUNDLE_LOCK_FILE = "bundle.lock";
/** a lock this old is stale whoever holds it (a bundle takes ms; a hung process must not block a key) */
export const LOCK_STALE_MS = 30_000;
/** how long a session start waits for another process's bundling */
export const LOCK_WAIT_MS = 3_000;
const POLL_MS = 10;

interface LockBody {
  pid: number;
  host: string;
  at: number;
}

/** held (`waited`: another process may have bundled meanwhile); busy past LOCK_WAIT_MS; unlocked: no lock file */
type BundleLock =
  | { kind: "held"; waited: boolean; release(): Promise<void> }
  | { kind: "busy"; holder: string }
  | { kind: "unlocked"; reason: string };

export interface LockOptions {
  now?: () => number;
  waitMs?: number;
  /** is `pid` a live process on this host (tests replace it) */
  alive?: (pid: number) => boolean;
}

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
        release: async () => {
          try {
            // only our own lock: a stale-lock breaker may have replaced it after LOCK_STALE_MS
            if ((await readLockFile(fs, file)) === mine) await fs.unlink(file);
          } catch {
            // gone already, or unreadable: a later session treats it as stale
          }
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
      try {
        // remove exactly the stale lock we read, not one a faster process has just taken
        if ((await readLockFile(fs, file)) === text) await fs.unlink(file);
      } catch {
        // another process removed it first
      }
      continue;
    }
    if (now() >= deadline) return { kind: "busy", holder: body ? `pid ${body.pid} on ${body.host}` : "unknown" };
    waited = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
