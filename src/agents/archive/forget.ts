/** The right to forget: remove one key's archive, prune every archive in a state dir to the retention, and sweep
 * idle archives in the background (their retention is otherwise never applied). */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { type WarnLogger, warnSafely } from "../../infra/log-once.js";
import { ARCHIVE_FILE, archiveDir, DAY_MS, archiveRoot, INDEX_FILE, readArchiveFile } from "./store.js";
import { orNull, rewriteArchiveFile, withArchiveLock } from "./store.js";

/** The entries of `dir` as paths, by name; none when it cannot be read. */
const listDir = (dir: string): string[] => orNull(() => readdirSync(dir).sort().map((n) => path.join(dir, n))) ?? [];

/** Every key's archive directory in the state dir. */
const archiveDirs = (stateDir: string): string[] =>
  listDir(archiveRoot(stateDir)).filter((d) => !path.basename(d).startsWith("."));

/** `archive rm --session-key K` and `forget`: the key's archive directory, under its lock. */
export const removeArchiveOf = (stateDir: string, sessionKey: string, opts: { dryRun?: boolean } = {}) =>
  removeArchiveDir(archiveDir(stateDir, sessionKey), opts.dryRun === true);

async function removeArchiveDir(dir: string, dryRun: boolean) {
  const bytes = listDir(dir).reduce((n, f) => n + (orNull(() => statSync(f))?.size ?? 0), 0);
  const receipt = { dir, existed: existsSync(dir), bytes, dryRun };
  if (!receipt.existed || dryRun) return receipt;
  // the lock keeps a concurrent append from landing in a file being removed
  await withArchiveLock(dir, async () => {
    for (const f of [ARCHIVE_FILE, INDEX_FILE]) rmSync(path.join(dir, f), { force: true });
  });
  rmSync(dir, { recursive: true, force: true });
  return receipt;
}

/** `removed`: nothing younger than the retention was left, the directory went. */
type PruneEntry = { dir: string; kept: number; dropped: number; removed: boolean };

/** Every archive in the state dir cut to `retentionDays` (records archived before that go). */
export async function pruneArchives(stateDir: string, opts: { retentionDays: number; dryRun?: boolean; now?: number }) {
  const cutoff = (opts.now ?? Date.now()) - opts.retentionDays * DAY_MS;
  const receipt = { retentionDays: opts.retentionDays, dryRun: opts.dryRun === true, archives: [] as PruneEntry[] };
  for (const dir of archiveDirs(stateDir)) {
    const file = path.join(dir, ARCHIVE_FILE);
    if (!existsSync(file)) continue;
    const { records } = await readArchiveFile(file);
    const kept = records.filter((r) => r.at >= cutoff);
    const entry: PruneEntry = { dir, kept: kept.length, dropped: records.length - kept.length, removed: kept.length === 0 };
    if (entry.dropped === 0 && !entry.removed) continue;
    receipt.archives.push(entry);
    if (receipt.dryRun) continue;
    if (entry.removed) await removeArchiveDir(dir, false);
    else {
      await withArchiveLock(dir, async () => {
        // read again under the lock: an append since the first read is kept
        await rewriteArchiveFile(file, (await readArchiveFile(file)).records.filter((r) => r.at >= cutoff));
        // the index is rebuilt from the file on the next load; a stale one could still know removed text
        rmSync(path.join(dir, INDEX_FILE), { force: true });
      });
    }
  }
  return receipt;
}

const lastSweep = new Map<string, number>();

/** Removes in the background, at most daily per state dir, the archives not written within the retention (by mtime:
 * stat only, cheap at a session start); a failure is logged, never thrown. */
export function sweepIdleArchivesSoon(stateDir: string, retentionDays: number, logger?: WarnLogger, now = Date.now()): void {
  const last = lastSweep.get(stateDir);
  if (last !== undefined && now - last < DAY_MS) return;
  lastSweep.set(stateDir, now);
  const sweep = setTimeout(async () => {
    try {
      const cutoff = Date.now() - retentionDays * DAY_MS;
      for (const dir of archiveDirs(stateDir)) {
        const st = orNull(() => statSync(path.join(dir, ARCHIVE_FILE)));
        if (st && st.mtimeMs < cutoff) await removeArchiveDir(dir, false);
      }
    } catch (e) {
      warnSafely(logger, `[context-manager] idle archive sweep failed: ${(e as Error)?.message ?? String(e)}`);
    }
  }, 0);
  sweep.unref?.();
}

/** For tests: forget when the sweep last ran. */
export const resetIdleSweepForTest = (): void => lastSweep.clear();
