/**
 * Writing a checkpoint (spec §5.2, §5.5, §12):
 *  1. validate the draft before touching disk;
 *  2. dedup: an `auto-80pct` draft is skipped when input_tokens moved less than `delta`
 *     (default 0.05) from the latest checkpoint of the SAME session id; `compaction` and
 *     `session-end` are never skipped;
 *  3. id = 1 + max(pointer id, highest cp_N on disk), so a lost pointer never restarts at cp_001;
 *  4. publish exclusively (never overwrite); when another writer took the id, take the next one;
 *  5. move the pointer only after the file is durable, and never backwards;
 *  6. retention.
 * Steps 5 and 6 failing does not undo a durable checkpoint: they are reported in `warnings`
 * (readers find a checkpoint newer than the pointer on their own).
 */
import path from "node:path";
import { createFileExclusive, ensurePrivateDir } from "../../infra/atomic-file.js";
import type { Checkpoint, CheckpointDraft } from "../context-checkpoint-schema.js";
import { checkpointSessionDir } from "../session-dir.js";
import { CheckpointError } from "./errors.js";
import { listCheckpointFilesInDir } from "./files.js";
import { checkpointFileName, formatCheckpointId, parseCheckpointId } from "./ids.js";
import { fsOf, retentionOf, type CheckpointStoreOptions } from "./options.js";
import { type LatestPointer, readPointerInDir, writePointerInDir } from "./pointer.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { readLatestInDir } from "./recovery.js";
import { pruneCheckpointsInDir } from "./retention.js";
import { validateCheckpoint } from "./validate.js";
import { serializeCheckpointChecked } from "./yaml.js";

export const DEFAULT_DEDUP_DELTA = 0.05;
const MAX_ID_ATTEMPTS = 1000;

export type WriteCheckpointResult =
  | { written: true; id: string; path: string; checkpoint: Checkpoint; pruned: string[]; warnings: string[] }
  | { written: false; reason: "dedup"; latest: Checkpoint };

function withId(draft: CheckpointDraft, id: string, previous: string | null): Checkpoint {
  const { session_key, session_id, session_file, created_at, trigger, compaction_count, token_usage, channel, agent_id } = draft.meta;
  return {
    ...draft,
    meta: {
      checkpoint_id: id,
      session_key,
      session_id,
      session_file,
      created_at,
      trigger,
      compaction_count,
      token_usage,
      previous_checkpoint: previous,
      channel,
      agent_id,
    },
  };
}

/** True when an auto checkpoint would repeat `latest` (token count moved less than `delta`). */
export function isDuplicateAutoCheckpoint(draft: CheckpointDraft, latest: Checkpoint | null, delta: number): boolean {
  if (draft.meta.trigger !== "auto-80pct" || latest === null) return false;
  if ((latest.meta.session_id ?? null) !== (draft.meta.session_id ?? null)) return false;
  const before = latest.meta.token_usage.input_tokens;
  const now = draft.meta.token_usage.input_tokens;
  return Math.abs(now - before) / Math.max(before, 1) < delta;
}

async function highestIdOnDisk(dir: string, opts: CheckpointStoreOptions): Promise<number> {
  const files = await listCheckpointFilesInDir(dir, fsOf(opts));
  return files.at(-1)?.n ?? 0;
}

/** The pointer's file still has the size it was written with (a torn or replaced file does not). */
async function sizeMatches(pointer: LatestPointer, fs: FsOps): Promise<boolean> {
  try {
    return pointer.bytes !== undefined && (await fs.stat(pointer.path)).size === pointer.bytes;
  } catch {
    return false;
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function writeCheckpoint(
  opts: CheckpointStoreOptions,
  draft: CheckpointDraft,
  dedup?: { delta: number },
): Promise<WriteCheckpointResult> {
  const fs = fsOf(opts);
  const retention = retentionOf(opts);
  const delta = dedup?.delta ?? DEFAULT_DEDUP_DELTA;
  if (!Number.isFinite(delta) || delta < 0) throw new RangeError(`dedup delta must be a finite number >= 0, got ${delta}`);
  validateCheckpoint(withId(draft, "cp_001", null), "draft");
  const key = draft.meta.session_key;
  const dir = checkpointSessionDir(opts.stateDir, key);
  await ensurePrivateDir(dir, fs);

  // Fast path: a valid pointer that names the newest file on disk carries what the writer
  // needs of the latest checkpoint (id, session id, tokens), so no YAML is parsed. Anything
  // else (no pointer, an older pointer format, a newer file left by a crashed writer) takes
  // the recovering read.
  const files = await listCheckpointFilesInDir(dir, fs);
  const top = files.at(-1)?.n ?? 0;
  const pointer = await readPointerInDir(dir, key, fs);
  const pointerN = pointer ? (parseCheckpointId(pointer.checkpoint_id) ?? 0) : 0;
  let latestId: string | null;
  if (pointer && pointer.input_tokens !== undefined && pointerN === top && (await sizeMatches(pointer, fs))) {
    latestId = pointer.checkpoint_id;
    const sameSession = (pointer.session_id ?? null) === (draft.meta.session_id ?? null);
    const moved = Math.abs(draft.meta.token_usage.input_tokens - pointer.input_tokens) / Math.max(pointer.input_tokens, 1);
    if (draft.meta.trigger === "auto-80pct" && sameSession && moved < delta) {
      const latest = await readLatestInDir(dir, key, fs);
      if (latest && isDuplicateAutoCheckpoint(draft, latest, delta)) return { written: false, reason: "dedup", latest };
    }
  } else {
    const latest = await readLatestInDir(dir, key, fs);
    if (isDuplicateAutoCheckpoint(draft, latest, delta) && latest) return { written: false, reason: "dedup", latest };
    latestId = latest?.meta.checkpoint_id ?? null;
  }
  let n = 1 + Math.max(pointerN, top);
  let previous = latestId;
  let published: { id: string; file: string; checkpoint: Checkpoint; text: string } | null = null;
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS && !published; attempt++) {
    const id = formatCheckpointId(n);
    const { text, checkpoint } = serializeCheckpointChecked(withId(draft, id, previous));
    const file = path.join(dir, checkpointFileName(id));
    if (await createFileExclusive(file, text, { fs })) {
      published = { id, file, checkpoint, text };
    } else {
      // another writer published this id meanwhile: it is now the latest, link to it and go past it
      const top = Math.max(n, await highestIdOnDisk(dir, opts));
      previous = formatCheckpointId(top);
      n = top + 1;
    }
  }
  if (!published) {
    throw new CheckpointError(dir, undefined, `could not find a free checkpoint id after ${MAX_ID_ATTEMPTS} attempts`);
  }

  const warnings: string[] = [];
  const publishedN = parseCheckpointId(published.id) ?? 0;
  let pointerId: string | null = pointer?.checkpoint_id ?? null;
  try {
    const current = await readPointerInDir(dir, null, fs);
    const currentN = current ? (parseCheckpointId(current.checkpoint_id) ?? 0) : 0;
    pointerId = current?.checkpoint_id ?? null;
    if (currentN < publishedN) {
      const meta = published.checkpoint.meta;
      await writePointerInDir(dir, published.id, key, fs, new Date(), {
        session_id: meta.session_id,
        input_tokens: meta.token_usage.input_tokens,
        bytes: Buffer.byteLength(published.text, "utf8"),
      });
      pointerId = published.id;
    }
  } catch (err) {
    warnings.push(`pointer not updated: ${describe(err)}`);
  }
  let pruned: string[] = [];
  try {
    const listed = [...files.filter((f) => f.n !== publishedN), { id: published.id, n: publishedN, path: published.file }].sort(
      (a, b) => a.n - b.n,
    );
    pruned = await pruneCheckpointsInDir(dir, retention, fs, Date.now(), { files: listed, pointerId });
  } catch (err) {
    warnings.push(`retention failed: ${describe(err)}`);
  }
  return { written: true, id: published.id, path: published.file, checkpoint: published.checkpoint, pruned, warnings };
}
