/**
 * The checkpoint writer of one session key (spec §5.2, §5.5, §12); an engine keeps one, so what
 * it knows of the directory stays in memory. A write validates, skips an auto draft that repeats
 * the latest (dedup), publishes `cp_<top+1>.yaml` exclusively, and withdraws and retries above a
 * higher id another writer published meanwhile: retention never removes the highest id, so ids
 * follow publish order. Pointer, retention and temp sweep are best effort (`warnings`).
 */
import path from "node:path";
import { createFileExclusive, ensurePrivateDir, syncDir } from "../../infra/atomic-file.js";
import { errorCode, nodeFsOps, type FsOps } from "../../infra/fs-ops.js";
import type { Checkpoint, CheckpointDraft } from "./schema.js";
import { checkpointSessionDir } from "../../infra/session-dir.js";
import { wellFormed } from "../text/visible.js";
import { CheckpointError } from "./errors.js";
import { checkpointFileName, formatCheckpointId, parseCheckpointId } from "./ids.js";
import { type CheckpointStoreOptions, deleteCheckpointFiles, retentionOf, sweepStaleTempFiles } from "./files.js";
import { scanSessionDir, pointerIsCurrent, readPointerInDir, writePointerInDir, readLatestInDir } from "./files.js";
import { validateCheckpoint } from "./validate.js";
import { emitCheckpoint, memoizeCheckpoint, normalizeForDisk } from "./yaml.js";

export const DEFAULT_DEDUP_DELTA = 0.05;
const MAX_ID_ATTEMPTS = 1000;

export type WriteCheckpointResult =
  | { written: true; id: string; path: string; checkpoint: Checkpoint; pruned: string[]; warnings: string[] }
  | { written: false; reason: "dedup"; latest: Checkpoint; warnings?: string[] };

interface LatestKnown {
  id: string;
  sessionId: string | null;
  inputTokens: number;
  /** the checkpoint itself when this writer wrote or read it */
  checkpoint: Checkpoint | null;
}

/** `top`: the highest checkpoint number seen in the directory */
type Known = { top: number; latest: LatestKnown | null };

function withMeta(cp: Checkpoint | CheckpointDraft, id: string, previous: string | null): Checkpoint {
  return { ...cp, meta: { ...cp.meta, checkpoint_id: id, previous_checkpoint: previous } };
}

/**
 * An `auto-80pct` draft repeats the latest checkpoint of its session id when input_tokens moved
 * less than `delta`, unless the session captured `capturedTokens` >= delta of them since (a history
 * whose oldest turns the host drops keeps its size, not its content).
 */
export interface AutoDedup {
  delta: number;
  capturedTokens?: number;
}

/** The session captured at least `delta` of the latest checkpoint's tokens since it: not a repeat. */
export function movedOn(capturedTokens: number | undefined, latestTokens: number, delta: number): boolean {
  return capturedTokens !== undefined && capturedTokens >= delta * Math.max(latestTokens, 1);
}

/** An auto draft of the latest's session id whose token count moved less than `delta` from the latest's. */
function repeats(draft: CheckpointDraft, { sessionId, inputTokens }: LatestKnown, delta: number): boolean {
  if (draft.meta.trigger !== "auto-80pct" || sessionId !== (draft.meta.session_id ?? null)) return false;
  return Math.abs(draft.meta.token_usage.input_tokens - inputTokens) / Math.max(inputTokens, 1) < delta;
}

/** True when an auto checkpoint would repeat `latest` (token count moved less than `delta`). */
export function isDuplicateAutoCheckpoint(draft: CheckpointDraft, latest: Checkpoint | null, delta: number): boolean {
  return latest !== null && repeats(draft, latestOf(latest), delta);
}

/** A best-effort step's failure, as a line of `warnings`. */
const warnOn = (warnings: string[], what: string) => (err: unknown) => {
  warnings.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
};

function latestOf(cp: Checkpoint): LatestKnown {
  return { id: cp.meta.checkpoint_id, sessionId: cp.meta.session_id ?? null, inputTokens: cp.meta.token_usage.input_tokens, checkpoint: cp };
}

/** One write without a long-lived writer (tests, tools, one-off callers): an engine keeps its own writer. */
export async function writeCheckpoint(opts: CheckpointStoreOptions, draft: CheckpointDraft, dedup?: AutoDedup): Promise<WriteCheckpointResult> {
  return new CheckpointWriter(opts, draft.meta.session_key).write(draft, dedup);
}

export class CheckpointWriter {
  readonly dir: string;
  private readonly fs: FsOps;
  private dirReady = false;
  private known: Known | null = null;
  /** out-of-range names already reported by this writer (one log line each) */
  private readonly reported = new Set<string>();
  /** the draft validated and normalized for disk, per draft */
  private readonly bases = new WeakMap<CheckpointDraft, Checkpoint>();
  /** warnings of a preview's directory read, not yet returned by a write */
  private readonly previewWarnings: string[] = [];

  constructor(
    private readonly opts: CheckpointStoreOptions,
    readonly sessionKey: string,
  ) {
    this.dir = checkpointSessionDir(opts.stateDir, sessionKey);
    this.fs = opts.fs ?? nodeFsOps;
  }

  write(draft: CheckpointDraft, dedup?: AutoDedup): Promise<WriteCheckpointResult> {
    return this.forgetOnError(() => this.writeOnce(draft, dedup));
  }

  /** What `write(draft)` will publish, with the id it tries first (another process may push it higher). */
  preview(draft: CheckpointDraft): Promise<Checkpoint> {
    return this.forgetOnError(async () => {
      const base = this.baseOf(draft);
      // what reading the directory found is reported with the write that follows
      const known = await this.knownNow(this.previewWarnings);
      return withMeta(base, formatCheckpointId(known.top + 1), known.latest?.id ?? null);
    });
  }

  /** Any failure forgets what this writer knew: the next call starts from the disk. */
  private async forgetOnError<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      this.known = null;
      this.dirReady = false;
      throw err;
    }
  }

  /** The draft validated and normalized for disk, checked to be this writer's key. */
  private baseOf(draft: CheckpointDraft): Checkpoint {
    let base = this.bases.get(draft);
    if (base) return base;
    base = normalizeForDisk(validateCheckpoint(withMeta(draft, "cp_001", null), "draft"));
    if (base.meta.session_key !== wellFormed(this.sessionKey)) {
      throw new CheckpointError("draft", "meta.session_key", "belongs to another session key than this writer's");
    }
    this.bases.set(draft, base);
    return base;
  }

  /** Highest id and latest, read once: the pointer's when it is current (no YAML parse), else the recovering read's. */
  private async knownNow(warnings: string[]): Promise<Known> {
    if (!this.dirReady) {
      await ensurePrivateDir(this.dir, this.fs);
      this.dirReady = true;
    }
    if (this.known) return this.known;
    const scan = await scanSessionDir(this.dir, this.fs);
    this.reportOutOfRange(scan.outOfRange, warnings);
    const pointer = await readPointerInDir(this.dir, this.sessionKey, this.fs, warnings);
    const top = Math.max(scan.files.at(-1)?.n ?? 0, pointer ? (parseCheckpointId(pointer.checkpoint_id) ?? 0) : 0);
    if (pointer?.input_tokens !== undefined && (await pointerIsCurrent(pointer, scan.files.at(-1)?.id, this.fs))) {
      const { checkpoint_id: id, session_id: sessionId = null, input_tokens: inputTokens } = pointer;
      return (this.known = { top, latest: { id, sessionId, inputTokens, checkpoint: null } });
    }
    const cp = await readLatestInDir(this.dir, this.sessionKey, this.fs);
    return (this.known = { top, latest: cp ? latestOf(cp) : null });
  }

  private async writeOnce(draft: CheckpointDraft, dedup?: AutoDedup): Promise<WriteCheckpointResult> {
    const { fs, dir } = this;
    const retention = retentionOf(this.opts);
    const delta = dedup?.delta ?? DEFAULT_DEDUP_DELTA;
    if (!Number.isFinite(delta) || delta < 0) throw new RangeError(`dedup delta must be a finite number >= 0, got ${delta}`);
    const base = this.baseOf(draft);
    const warnings: string[] = this.previewWarnings.splice(0);
    const { top: seenTop, latest } = await this.knownNow(warnings);

    // what the writer knows of the latest decides first; only a likely repeat reads it
    if (latest && repeats(draft, latest, delta) && !movedOn(dedup?.capturedTokens, latest.inputTokens, delta)) {
      const cp = latest.checkpoint ?? (await readLatestInDir(dir, this.sessionKey, fs));
      if (cp && isDuplicateAutoCheckpoint(draft, cp, delta)) return { written: false, reason: "dedup", latest: cp, warnings };
    }

    let n = seenTop + 1;
    let previous = latest?.id ?? null;
    let recreatedDir = false;
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const id = formatCheckpointId(n);
      const checkpoint = withMeta(base, id, previous);
      const text = emitCheckpoint(checkpoint);
      const file = path.join(dir, checkpointFileName(id));
      let created: boolean;
      try {
        created = await createFileExclusive(file, text, { fs, syncDir: false });
      } catch (err) {
        // the directory was removed under a writer that created it once: recreate it, once
        if (errorCode(err) !== "ENOENT" || recreatedDir) throw err;
        recreatedDir = true;
        await ensurePrivateDir(dir, fs);
        continue;
      }
      const bytes = Buffer.byteLength(text, "utf8");
      // what follows the link needs no other: the fsync, the listing and the pointer side by side
      const [scan] = await Promise.all([
        scanSessionDir(dir, fs),
        created ? syncDir(dir, fs) : undefined,
        created && writePointerInDir(dir, checkpoint, bytes, fs).catch(warnOn(warnings, "pointer not updated")),
      ]);
      this.reportOutOfRange(scan.outOfRange, warnings);
      const top = scan.files.at(-1)?.n ?? 0;
      if (!created || top > n) {
        // overtaken: another writer holds this id or a higher one. A file we published below
        // the highest id is withdrawn: its id may have named a checkpoint pruned meanwhile
        if (created) {
          const what = `could not withdraw ${path.basename(file)} after a concurrent writer went past it`;
          await fs.unlink(file).catch((err: unknown) => errorCode(err) === "ENOENT" || warnOn(warnings, what)(err));
        }
        n = Math.max(n, top) + 1;
        previous = formatCheckpointId(n - 1);
        continue;
      }
      this.known = { top: n, latest: latestOf(checkpoint) };
      // the next reader in this process (a new session, a fresh engine) skips the parse
      memoizeCheckpoint(text, checkpoint, true);
      // retention and temp sweep, best effort: the listing holds the new file as its highest id; the newest
      // `retention` stay, the highest always
      const pruned: string[] = [];
      const old = scan.files.slice(0, Math.max(0, scan.files.length - retention));
      await deleteCheckpointFiles(old, fs, pruned).catch(warnOn(warnings, "retention failed"));
      await sweepStaleTempFiles(dir, fs, scan.temps);
      return { written: true, id, path: file, checkpoint, pruned, warnings };
    }
    throw new CheckpointError(dir, undefined, `could not find a free checkpoint id after ${MAX_ID_ATTEMPTS} attempts`);
  }

  private reportOutOfRange(names: string[], warnings: string[]): void {
    for (const name of names.filter((n) => !this.reported.has(n))) {
      this.reported.add(name);
      warnings.push(`ignoring ${name.slice(0, 40)}: checkpoint id out of range (corrupt)`);
    }
  }
}
