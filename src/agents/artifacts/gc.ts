/**
 * Artifact gc, tied to checkpoint retention (the rules: docs/artifacts.md#gc-tied-to-checkpoint-retention);
 * `forget <key>` removes only what no other key names; `artifact rm` one handle.
 */
import { type Dirent, existsSync, promises as fsp, statSync } from "node:fs";
import path from "node:path";
import { checkpointsRoot, sessionDirName } from "../../infra/session-dir.js";
import { formatHandle, HANDLE_IN_TEXT_RE, parseHandle } from "./handle.js";
import { MAX_STASHES_PER_SESSION } from "./session-stashes.js";
import { artifactsRoot, blobPath, dropFromRefs, metaPath, refLines, refsDir, removeArtifact } from "./store.js";
import { readRegularFile } from "../../infra/regular-file.js";
import { fileStores } from "../../infra/process-services.js";
import { debugLog } from "../../infra/debug-log.js";
import { errorCode, tryOr } from "../../infra/fs-ops.js";

export const GC_SCHEMA = "openclaw-context.artifact.gc.v1";

/** A session key with a stash this recent keeps all its artifacts. */
const ACTIVE_SESSION_MS = 6 * 3_600_000;

/** Lets the event loop run between slices (gc shares it with every chat of a gateway). */
const SLICE = 64;
let sinceYield = 0;
async function slice(): Promise<void> {
  if (++sinceYield < SLICE) return;
  sinceYield = 0;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  return fsp.readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    if (errorCode(e) === "ENOENT" || errorCode(e) === "ENOTDIR") return [];
    throw e;
  });
}

const namesIn = async (dir: string): Promise<string[]> => (await entriesOf(dir)).map((e) => e.name);

/** Files under dir, recursively (small trees). */
async function filesUnder(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await entriesOf(dir)) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await filesUnder(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The digests `files` name: handles in any text, bare digests in refs logs. */
async function handlesIn(files: readonly string[], into = new Set<string>()): Promise<Set<string>> {
  for (const f of files) {
    await slice();
    const text = await readRegularFile(f, "utf8").catch(() => "");
    for (const m of text.includes("ocm_artifact:") ? text.matchAll(HANDLE_IN_TEXT_RE) : []) into.add(m[1]!);
    if (f.endsWith(".log")) for (const l of refLines(text)) into.add(l.hex);
  }
  return into;
}

/** Every stored digest (anything that is not a blob name is ignored). */
export async function listArtifactDigests(stateDir: string): Promise<string[]> {
  const root = path.join(artifactsRoot(stateDir), "blobs", "sha256");
  const out: string[] = [];
  for (const f of await filesUnder(root)) {
    const m = /^([0-9a-f]{2})[\\/]([0-9a-f]{2})[\\/]([0-9a-f]{64})\.txt$/.exec(path.relative(root, f));
    if (m && m[3]!.startsWith(m[1]! + m[2]!)) out.push(m[3]!);
  }
  return out.sort();
}

/** Removes what nothing can point at; asynchronous and sliced (a gateway holds hundreds of keys). */
export async function gcArtifacts(stateDir: string, opts: { dryRun?: boolean; minAgeSeconds?: number } = {}) {
  const now = Date.now();
  const minAgeMs = (opts.minAgeSeconds ?? 3600) * 1000;
  const digests = await listArtifactDigests(stateDir);
  const stateFiles = [checkpointsRoot(stateDir), path.join(stateDir, "context", "state")].map((d) => filesUnder(d));
  const byCheckpoint = await handlesIn((await Promise.all(stateFiles)).flat());

  const live = new Set<string>();
  for (const name of (await namesIn(refsDir(stateDir))).filter((n) => n.endsWith(".log"))) {
    await slice();
    const text = await readRegularFile(path.join(refsDir(stateDir), name), "utf8").catch(() => "");
    const lines = refLines(text).filter((l) => Number.isFinite(l.at));
    const cpDir = path.join(checkpointsRoot(stateDir), name.slice(0, -4));
    let cpAt = -Infinity; // no checkpoint: every stash is after it
    for (const cp of (await namesIn(cpDir)).filter((n) => /^cp_\d+\.yaml$/.test(n))) {
      const t = (await fsp.stat(path.join(cpDir, cp)).catch(() => null))?.mtimeMs; // undefined: pruned meanwhile
      cpAt = Math.max(cpAt, t ?? -Infinity);
    }
    const recent = new Set(lines.slice(-MAX_STASHES_PER_SESSION).map((l) => l.hex));
    const active = lines.length > 0 && now - lines[lines.length - 1]!.at < ACTIVE_SESSION_MS;
    for (const l of lines) if (active || l.at >= cpAt || recent.has(l.hex)) live.add(l.hex);
  }

  const dryRun = opts.dryRun === true;
  const keptBecause = { checkpoint: 0, liveSession: 0, young: 0 };
  const handles: string[] = [];
  const receipt = { schema: GC_SCHEMA, dryRun, scanned: digests.length, kept: 0, keptBecause, removed: handles, bytesFreed: 0 };
  const removed = new Set<string>();
  for (const hex of digests) {
    let why: keyof typeof keptBecause | null = byCheckpoint.has(hex) ? "checkpoint" : live.has(hex) ? "liveSession" : null;
    if (!why) {
      await slice();
      const st = await fsp.stat(blobPath(stateDir, hex)).catch(() => null);
      if (!st) continue;
      if (now - st.mtimeMs < minAgeMs) why = "young";
      else {
        if (!dryRun) removeArtifact(stateDir, hex);
        removed.add(hex);
        receipt.removed.push(formatHandle(hex));
        receipt.bytesFreed += st.size;
        continue;
      }
    }
    keptBecause[why]++;
    receipt.kept++;
  }
  if (!dryRun) dropFromRefs(stateDir, removed);
  return receipt;
}

/** Auto gc after a checkpoint write: at most hourly per state dir per process, never throws. */
const AUTO_GC_INTERVAL_MS = 3_600_000;

declare module "../../infra/process-services.js" {
  interface FileStores { artifactGcRuns?: Map<string, number> }
}

const lastRun = (): Map<string, number> => (fileStores().artifactGcRuns ??= new Map());

/** A gc unless one ran within the interval; resolves with its receipt (or null). */
export function scheduleArtifactGc(stateDir: string) {
  const now = Date.now();
  if (now - (lastRun().get(stateDir) ?? -Infinity) < AUTO_GC_INTERVAL_MS) return null;
  lastRun().set(stateDir, now);
  return (async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      const receipt = await gcArtifacts(stateDir);
      if (receipt.removed.length) debugLog("artifact auto gc", `${receipt.removed.length} removed, ${receipt.bytesFreed} bytes`);
      return receipt;
    } catch (e) {
      debugLog("artifact auto gc", e);
      return null;
    }
  })();
}

export function resetAutoGcForTest(): void {
  lastRun().clear();
}

/** The roots with a directory per key (the archive's spelled here: archive/ imports artifacts/). */
const keyRoots = (stateDir: string): string[] =>
  [checkpointsRoot(stateDir), path.join(stateDir, "context", "state"), path.join(stateDir, "context", "archive")];

/** The digests one key directory names: its refs log and every file under its directories. */
async function namedBy(stateDir: string, dirName: string, into?: Set<string>): Promise<Set<string>> {
  const places = [path.join(refsDir(stateDir), `${dirName}.log`)];
  for (const root of keyRoots(stateDir)) places.push(...(await filesUnder(path.join(root, dirName))));
  return handlesIn(places, into);
}

/** `own`: digests only this key names (forgetting the key removes them); `shared`: other keys name them too (kept). */
export async function artifactsOfKey(stateDir: string, sessionKey: string) {
  const mine = sessionDirName(sessionKey);
  const named = await namedBy(stateDir, mine);
  const dirs = new Set<string>();
  for (const root of keyRoots(stateDir)) for (const n of await namesIn(root)) if (!n.startsWith(".")) dirs.add(n);
  for (const n of await namesIn(refsDir(stateDir))) if (n.endsWith(".log")) dirs.add(n.slice(0, -4));
  const others = new Set<string>();
  for (const d of dirs) if (d !== mine) await namedBy(stateDir, d, others);
  const out = { own: [] as string[], shared: [] as string[] };
  for (const hex of [...named].sort()) if (existsSync(blobPath(stateDir, hex))) out[others.has(hex) ? "shared" : "own"].push(hex);
  return out;
}

/** Blob and meta bytes; a file gone counts 0. */
export const artifactBytes = (stateDir: string, hex: string): number =>
  [blobPath(stateDir, hex), metaPath(stateDir, hex)].reduce((n, f) => n + tryOr(() => statSync(f).size, 0), 0);

/** `artifact rm <handle>`: blob, meta and refs lines. Throws ArtifactHandleError on a bad handle. */
export function removeArtifactByHandle(stateDir: string, handle: string, opts: { dryRun?: boolean } = {}) {
  const hex = parseHandle(handle);
  const bytes = artifactBytes(stateDir, hex);
  const receipt = { handle: formatHandle(hex), removed: bytes > 0, bytes, dryRun: opts.dryRun === true };
  if (!receipt.dryRun && receipt.removed) {
    removeArtifact(stateDir, hex);
    dropFromRefs(stateDir, new Set([hex]));
  }
  return receipt;
}
