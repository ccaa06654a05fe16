/**
 * Durable writes: replace all-or-nothing (tmp, fsync, rename, fsync dir) or create without overwriting
 * (tmp, fsync, link). Temps sit beside the target (no cross-device rename) and go on failure.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { errorCode, makeDirs, nodeFsOps, type FsOps } from "./fs-ops.js";

export interface AtomicWriteOptions {
  fs?: FsOps;
  /** file mode, default 0o600 (checkpoints and state may hold conversation text) */
  mode?: number;
  /** default true: fsyncs (survives power loss); false: all-or-nothing against a crash only (hints) */
  durable?: boolean;
  /** default true (when durable): fsync the directory; false when the caller does it once for several */
  syncDir?: boolean;
}

const DEFAULT_FILE_MODE = 0o600;
const DEFAULT_DIR_MODE = 0o700;
/** Windows reports a rename onto a file held open by a scanner/indexer as EPERM/EBUSY/EACCES for a moment. */
const TRANSIENT_RENAME_CODES = new Set(["EPERM", "EBUSY", "EACCES"]);
/** link() is unsupported on some file systems (FAT, some network and Android mounts). */
const LINK_UNSUPPORTED_CODES = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS", "EINVAL"]);
const RENAME_RETRIES = 5;
const transient = (err: unknown): boolean => TRANSIENT_RENAME_CODES.has(errorCode(err) ?? "");

/** A random start per process, then counted up (a randomBytes per write: ~0.2 ms a turn, bench/gateway.ts). */
let tempSeq = -1;
function tempSuffix(): string {
  if (tempSeq < 0) tempSeq = randomBytes(6).readUIntBE(0, 6);
  tempSeq = (tempSeq + 1) % 2 ** 48;
  return tempSeq.toString(16).padStart(12, "0");
}

/** Name of a temp file next to `target`; matches TEMP_FILE_RE. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${tempSuffix()}.tmp`);
}

/** Temp files created by this module (used by cleanup of stale leftovers after a crash). */
export const TEMP_FILE_RE = /^\..+\.\d+\.[0-9a-f]{12}\.tmp$/;

async function writeSynced(fs: FsOps, file: string, flags: string, data?: string, mode?: number): Promise<void> {
  const fh = await fs.open(file, flags, mode);
  try {
    if (data !== undefined) await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Already gone, or cleanup is impossible: the stale-temp sweep will retry later. */
const unlinkQuietly = (fs: FsOps, file: string): Promise<void> => fs.unlink(file).catch(() => undefined);

/** fsync a directory so a rename/link inside it survives power loss. Not possible on Windows: best effort. */
export async function syncDir(dir: string, fs: FsOps = nodeFsOps): Promise<void> {
  await writeSynced(fs, dir, "r").catch(() => undefined);
}

async function renameWithRetry(fs: FsOps, from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rename(from, to);
      return;
    } catch (err) {
      if (!transient(err) || attempt >= RENAME_RETRIES) throw err;
      await new Promise<void>((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}

/**
 * Replace `target` with `data` atomically; on a persistent EPERM/EBUSY/EACCES from rename (Windows,
 * a locked file) it is rewritten in place: not atomic, but our readers validate what they read.
 */
export async function writeFileAtomic(target: string, data: string, opts: AtomicWriteOptions = {}): Promise<void> {
  const fs = opts.fs ?? nodeFsOps;
  const mode = opts.mode ?? DEFAULT_FILE_MODE;
  const durable = opts.durable ?? true;
  const tmp = tempPathFor(target);
  try {
    // not durable: one call instead of open + write + close
    if (durable) await writeSynced(fs, tmp, "wx", data, mode);
    else await fs.writeFile(tmp, data, { mode, flag: "wx" });
    try {
      await renameWithRetry(fs, tmp, target);
    } catch (err) {
      if (!transient(err)) throw err;
      await fs.writeFile(target, data, { mode });
      await unlinkQuietly(fs, tmp);
    }
  } catch (err) {
    await unlinkQuietly(fs, tmp);
    throw err;
  }
  if (durable && opts.syncDir !== false) await syncDir(path.dirname(target), fs);
}

/**
 * Create `target` with `data`, durably, never overwriting; false when it exists. Where link() is
 * unsupported: claim the name with an exclusive empty create, then rename the temp file over it
 * (a crash in between leaves an empty file, which readers reject).
 */
export async function createFileExclusive(target: string, data: string, opts: AtomicWriteOptions = {}): Promise<boolean> {
  const fs = opts.fs ?? nodeFsOps;
  const mode = opts.mode ?? DEFAULT_FILE_MODE;
  const tmp = tempPathFor(target);
  let created = false;
  try {
    await writeSynced(fs, tmp, "wx", data, mode);
    try {
      await fs.link(tmp, target);
      created = true;
    } catch (err) {
      const code = errorCode(err) ?? "";
      if (code !== "EEXIST" && !LINK_UNSUPPORTED_CODES.has(code)) throw err;
      if (code !== "EEXIST") created = await claimThenRename(fs, tmp, target, mode);
    }
  } catch (err) {
    await unlinkQuietly(fs, tmp);
    throw err;
  }
  // the temp name's removal need not be durable: it goes beside the directory's fsync, not before it
  await Promise.all([unlinkQuietly(fs, tmp), created && opts.syncDir !== false ? syncDir(path.dirname(target), fs) : undefined]);
  return created;
}

async function claimThenRename(fs: FsOps, tmp: string, target: string, mode: number): Promise<boolean> {
  try {
    const claim = await fs.open(target, "wx", mode);
    await claim.close();
  } catch (err) {
    if (errorCode(err) === "EEXIST") return false;
    throw err;
  }
  try {
    await renameWithRetry(fs, tmp, target);
  } catch (err) {
    await unlinkQuietly(fs, target); // our own empty claim: do not leave it behind
    throw err;
  }
  return true;
}

/** mkdir -p; the leaf gets mode 0700 (parents created on the way too; existing parents untouched). */
export async function ensurePrivateDir(dir: string, fs: FsOps = nodeFsOps): Promise<void> {
  await makeDirs(dir, DEFAULT_DIR_MODE, fs);
  // a failed chmod: not our directory to fix (e.g. owned by another user), writes will report the real problem
  if (process.platform !== "win32") await fs.chmod(dir, DEFAULT_DIR_MODE).catch(() => undefined);
}
