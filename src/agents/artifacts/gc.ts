/**
 * Artifact gc, tied to checkpoint retention: an artifact stays while a kept checkpoint or state file
 * names it; while its session stashed it after its newest checkpoint, among its last
 * MAX_STASHES_PER_SESSION, has no checkpoint, or stashed within activeSessionSeconds (aged results
 * show by handle anywhere in a running prompt); or while younger than minAgeSeconds (a concurrent
 * stash may not have logged its ref yet).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { formatHandle, HANDLE_IN_TEXT_RE } from "./handle.js";
import { MAX_STASHES_PER_SESSION } from "./session-stashes.js";
import { artifactsRoot, blobPath, refLines, refsDir, removeArtifact, writeFileReplacing } from "./store.js";
import { readRegularFile } from "../../infra/regular-file.js";
import { fileStores } from "../../infra/process-services.js";
import { debugLog } from "../../infra/debug-log.js";

export const GC_SCHEMA = "openclaw-context.artifact.gc.v1";

export interface GcOptions {
  dryRun?: boolean;
  /** default 3600 */
  minAgeSeconds?: number;
  /** a session key with a stash this recent keeps all its artifacts; default 6 h */
  activeSessionSeconds?: number;
  now?: number;
}

export interface GcReceipt {
  schema: typeof GC_SCHEMA;
  dryRun: boolean;
  scanned: number;
  kept: number;
  keptBecause: { checkpoint: number; liveSession: number; young: number };
  removed: string[];
  bytesFreed: number;
}

/** Lets the event loop run between slices (gc shares it with every chat of a gateway). */
const SLICE = 64;
let sinceYield = 0;
async function slice(): Promise<void> {
  if (++sinceYield < SLICE) return;
  sinceYield = 0;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function readdirSafe(dir: string): Promise<import("node:fs").Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw e;
  }
}

const namesIn = async (dir: string): Promise<string[]> => (await readdirSafe(dir)).map((e) => e.name);

/** Files under dir, recursively (small trees). */
export async function filesUnder(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdirSafe(dir)) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await filesUnder(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The digests `files` name: handles in any text, bare digests in refs logs. */
export async function handlesIn(files: readonly string[], into: Set<string>): Promise<void> {
  for (const f of files) {
    await slice();
    let text: string;
    try {
      text = await readRegularFile(f, "utf8");
    } catch {
      continue;
    }
    const log = f.endsWith(".log");
    if (!text.includes("ocm_artifact:") && !log) continue;
    for (const m of text.matchAll(HANDLE_IN_TEXT_RE)) into.add(m[1]!);
    if (log) for (const l of refLines(text)) into.add(l.hex);
  }
}

async function newestCheckpointMs(stateDir: string, sessionDir: string): Promise<number | null> {
  const dir = path.join(stateDir, "context", "checkpoints", sessionDir);
  let newest: number | null = null;
  for (const name of await namesIn(dir)) {
    if (!/^cp_\d+\.yaml$/.test(name)) continue;
    try {
      const t = (await fsp.stat(path.join(dir, name))).mtimeMs;
      if (newest === null || t > newest) newest = t;
    } catch {
      // pruned meanwhile
    }
  }
  return newest;
}

type RefLine = ReturnType<typeof refLines>[number];

async function readRefs(file: string): Promise<RefLine[]> {
  try {
    return refLines(await readRegularFile(file, "utf8")).filter((l) => Number.isFinite(l.at));
  } catch {
    return [];
  }
}

/** Every stored digest (anything that is not a blob name is ignored). */
export async function listArtifactDigests(stateDir: string): Promise<string[]> {
  const root = path.join(artifactsRoot(stateDir), "blobs", "sha256");
  const out: string[] = [];
  for (const a of await namesIn(root)) {
    if (!/^[0-9a-f]{2}$/.test(a)) continue;
    for (const b of await namesIn(path.join(root, a))) {
      if (!/^[0-9a-f]{2}$/.test(b)) continue;
      await slice();
      for (const f of await namesIn(path.join(root, a, b))) {
        const m = /^([0-9a-f]{64})\.txt$/.exec(f);
        if (m && m[1]!.startsWith(a + b)) out.push(m[1]!);
      }
    }
  }
  return out.sort();
}

/** Removes what nothing can point at; asynchronous and sliced (a gateway holds hundreds of keys). */
export async function gcArtifacts(stateDir: string, opts: GcOptions = {}): Promise<GcReceipt> {
  const now = opts.now ?? Date.now();
  const minAgeMs = (opts.minAgeSeconds ?? 3600) * 1000;
  const activeMs = (opts.activeSessionSeconds ?? 6 * 3600) * 1000;
  const digests = await listArtifactDigests(stateDir);

  const byCheckpoint = new Set<string>();
  await handlesIn(await filesUnder(path.join(stateDir, "context", "checkpoints")), byCheckpoint);
  await handlesIn(await filesUnder(path.join(stateDir, "context", "state")), byCheckpoint);

  const live = new Set<string>();
  const refs = new Map<string, RefLine[]>();
  for (const name of await namesIn(refsDir(stateDir))) {
    if (!name.endsWith(".log")) continue;
    await slice();
    const file = path.join(refsDir(stateDir), name);
    const lines = await readRefs(file);
    refs.set(file, lines);
    const cpAt = await newestCheckpointMs(stateDir, name.slice(0, -4));
    const recent = new Set(lines.slice(-MAX_STASHES_PER_SESSION).map((l) => l.hex));
    const active = lines.length > 0 && now - lines[lines.length - 1]!.at < activeMs;
    for (const l of lines) if (active || cpAt === null || l.at >= cpAt || recent.has(l.hex)) live.add(l.hex);
  }

  const receipt: GcReceipt = {
    schema: GC_SCHEMA,
    dryRun: opts.dryRun === true,
    scanned: digests.length,
    kept: 0,
    keptBecause: { checkpoint: 0, liveSession: 0, young: 0 },
    removed: [],
    bytesFreed: 0,
  };
  const removed = new Set<string>();
  for (const hex of digests) {
    if (byCheckpoint.has(hex)) receipt.keptBecause.checkpoint++;
    else if (live.has(hex)) receipt.keptBecause.liveSession++;
    else {
      await slice();
      let st: import("node:fs").Stats | null = null;
      try {
        st = await fsp.stat(blobPath(stateDir, hex));
      } catch {
        continue;
      }
      if (now - st.mtimeMs < minAgeMs) receipt.keptBecause.young++;
      else {
        if (!receipt.dryRun) removeArtifact(stateDir, hex);
        removed.add(hex);
        receipt.removed.push(formatHandle(hex));
        receipt.bytesFreed += st.size;
        continue;
      }
    }
    receipt.kept++;
  }
  if (!receipt.dryRun && removed.size > 0) {
    for (const [file, lines] of refs) {
      const keep = lines.filter((l) => !removed.has(l.hex));
      if (keep.length !== lines.length) writeFileReplacing(file, keep.map((l) => `${l.raw}\n`).join(""));
    }
  }
  return receipt;
}

/** Auto gc after a checkpoint write: at most hourly per state dir per process, never throws. */
export const AUTO_GC_INTERVAL_MS = 3_600_000;

declare module "../../infra/process-services.js" {
  interface FileStores { artifactGcRuns?: Map<string, number> }
}

const lastRun = (): Map<string, number> => (fileStores().artifactGcRuns ??= new Map());

/** A gc unless one ran within the interval; resolves with its receipt (or null). */
export function scheduleArtifactGc(stateDir: string, now: number = Date.now()): Promise<GcReceipt | null> | null {
  const last = lastRun().get(stateDir);
  if (last !== undefined && now - last < AUTO_GC_INTERVAL_MS) return null;
  lastRun().set(stateDir, now);
  return new Promise<void>((resolve) => setImmediate(resolve))
    .then(() => gcArtifacts(stateDir))
    .then(
      (receipt) => {
        if (receipt.removed.length) debugLog("artifact auto gc", `${receipt.removed.length} removed, ${receipt.bytesFreed} bytes`);
        return receipt;
      },
      (e: unknown) => {
        debugLog("artifact auto gc", e);
        return null;
      },
    );
}

export function resetAutoGcForTest(): void {
  lastRun().clear();
}
