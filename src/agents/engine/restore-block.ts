/**
 * The restore block of a session key (spec §8.2): the latest checkpoint rendered with workspace drift and
 * stored outputs; which block is owed (owedRestoreBlock) and when it is delivered (RestoreDelivery). Never throws.
 */
import { readLatestCheckpoint } from "../checkpoint/files.js";
import { type RenderedRestore, type RestoreExtraSection, renderCheckpointRestore } from "../inject/render-restore.js";
import { tryParseHandle } from "../artifacts/handle.js";
import { FETCH_TOOL_NAME } from "../artifacts/preview.js";
import { type ArtifactRef, type Checkpoint, LINES_RE } from "../checkpoint/schema.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../config/context-manager-config.js";
import type { FsOps } from "../../infra/fs-ops.js";
import { type DriftReport, driftOf } from "../drift/compare.js";
import { driftExtraSection } from "../drift/render.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import type { WarnLogger } from "../../infra/log-once.js";
import { warnSafely } from "../../infra/log-once.js";
import { compactionOutcomeSince } from "./compaction.js";

/** Artifacts the "Stored outputs" extra section shows at most (those a checkpoint points at, newest first). */
const RESTORE_MAX_LINES = 3;

export const ARTIFACTS_EXTRA_TITLE = `Stored outputs (read with ${FETCH_TOOL_NAME}):`;

/** The stored outputs as an extra section: the renderer quotes each entry and re-checks its handle. */
export function artifactsExtraSection(refs: readonly ArtifactRef[] | undefined): RestoreExtraSection | null {
  const shown = (refs ?? []).filter((r) => tryParseHandle(r.handle) !== null).slice(0, RESTORE_MAX_LINES);
  if (shown.length === 0) return null;
  return {
    id: "artifacts", // its id in RenderedRestore.omittedExtras
    title: ARTIFACTS_EXTRA_TITLE,
    // a partial read names its lines: two reads of one file are told apart
    lines: shown.map((r) => `${[...r.tool].slice(0, 24).join("")} ${tailOf(r.target, 80)}${r.lines && LINES_RE.test(r.lines) ? ` lines ${r.lines}` : ""} (${Math.max(1, Math.round(r.bytes / 1024))} KB)`),
    handles: shown.map((r) => r.handle),
  };
}

/** A long target keeps its end (the file name, the last words of a command), not its start. */
function tailOf(target: string, max: number): string {
  const chars = [...target];
  return chars.length <= max ? target : `…${chars.slice(chars.length - (max - 1)).join("")}`;
}

export type RestoreKind = "post-compaction" | "resume";

export interface RestoreParams {
  stateDir: string;
  config?: ContextManagerConfig | unknown;
  fs?: FsOps;
}

export interface RestoreBlock {
  text: string;
  tokens: number;
  checkpoint: Checkpoint;
  /** the workspace compared with the checkpoint's record (null: no record) */
  drift?: DriftReport | null;
}

const reportedBadKeys = new Set<string>();

/** A restore seam's key as the host passed it, or null (not a string: logged once per seam and kind of value). */
export function seamKey(seam: string, value: unknown, logger: WarnLogger | undefined): string | null {
  const key = hostSessionKey(value);
  if (key !== null) return key;
  const what = describeBadKey(value);
  if (!reportedBadKeys.has(`${seam}\u0000${what}`)) {
    reportedBadKeys.add(`${seam}\u0000${what}`);
    warnSafely(logger, `[context-manager] ${seam}: the session key is ${what}, not a string; no restore block for this call`);
  }
  return null;
}

export function restoreConfigOf(p: RestoreParams): ContextManagerConfig {
  const c = p.config as ContextManagerConfig | undefined;
  return c && typeof c === "object" && "restoreMaxTokens" in c ? c : resolveContextManagerConfig(p.config ?? {});
}

/** The rendered block of the latest checkpoint of `sessionKey`, or null. */
export async function readCheckpointForInjection(
  sessionKey: string,
  params: RestoreParams & { kind: RestoreKind; accept?: (cp: Checkpoint) => boolean; logger?: WarnLogger },
): Promise<RestoreBlock | null> {
  if (seamKey("readCheckpointForInjection", sessionKey, params?.logger) === null) return null;
  try {
    const config = restoreConfigOf(params);
    if (!config.enabled) return null;
    const cp = await readLatestCheckpoint({ stateDir: params.stateDir, fs: params.fs }, canonicalSessionKey(sessionKey));
    if (!cp || (params.accept && !params.accept(cp))) return null;
    return restoreBlockOf(cp, { stateDir: params.stateDir, kind: params.kind, maxTokens: config.restoreMaxTokens });
  } catch {
    return null;
  }
}

/** `cp` as the block the host injects, drift included: for a caller that read it already (pi's `/context`). */
export function restoreBlockOf(cp: Checkpoint, opts: { stateDir: string; kind: RestoreKind; maxTokens: number }): RestoreBlock {
  let drift: DriftReport | null = null;
  try {
    drift = driftOf(cp, opts.stateDir);
  } catch {
    drift = null; // the block goes out without the drift section
  }
  const rendered = renderRestoreBlock(cp, { kind: opts.kind, maxTokens: opts.maxTokens, drift });
  return { text: rendered.text, tokens: rendered.tokens, checkpoint: cp, drift };
}

/** `cp` as the block the host injects (and the CLI's `restore` prints): drift, then stored outputs, rendered once. */
export function renderRestoreBlock(cp: Checkpoint, opts: { kind: RestoreKind; maxTokens: number; drift: DriftReport | null }): RenderedRestore {
  const extras = [opts.drift ? driftExtraSection(opts.drift) : null, artifactsExtraSection(cp.artifacts)];
  const extraSections = extras.filter((s): s is RestoreExtraSection => s !== null);
  return renderCheckpointRestore(cp, { kind: opts.kind, maxTokens: opts.maxTokens, extraSections });
}

const notFresh = (m: { role: string }): boolean => m.role === "assistant" || m.role === "compactionSummary";

/** Where a key's restore blocks are read: the host key as given (the read maps it to the stored key). */
export type RestoreSite = RestoreParams & { sessionKey: string; logger?: WarnLogger };

/**
 * The one delivery rule of every host: resume, a checkpoint of an earlier session (none of `ids`);
 * post-compaction (started at `since`), compactionCheckpointFilter. `ids`: this session's, then its earlier ones.
 */
export async function owedRestoreBlock(
  site: RestoreSite,
  kind: RestoreKind,
  ids: ReadonlyArray<string | null>,
  since = 0,
): Promise<RestoreBlock | null> {
  const accept =
    kind === "resume"
      ? (cp: Checkpoint) => !(cp.meta.session_id !== null && ids.includes(cp.meta.session_id))
      : compactionCheckpointFilter(site, ids, since);
  return accept ? readCheckpointForInjection(site.sessionKey, { ...site, kind, accept }) : null;
}

/**
 * Which checkpoint may stand for the compaction that started at `since`: the one its hook wrote
 * (none, logged, when it failed), else a compaction checkpoint created since.
 */
function compactionCheckpointFilter(
  site: RestoreSite,
  ids: ReadonlyArray<string | null>,
  since: number,
): ((cp: Checkpoint) => boolean) | null {
  const stored = canonicalSessionKey(site.sessionKey);
  let outcome: ReturnType<typeof compactionOutcomeSince> = null;
  for (const id of ids) {
    const o = compactionOutcomeSince(site.stateDir, stored, id, since);
    if (o && (!outcome || o.at > outcome.at)) outcome = o;
  }
  if (outcome && outcome.checkpointId === null) {
    if (outcome.reported) return null;
    outcome.reported = true;
    warnSafely(
      site.logger,
      "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
    );
    return null;
  }
  const mine = (cp: Checkpoint): boolean => ids.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction";
  const written = outcome?.checkpointId;
  if (written) return (cp) => mine(cp) && cp.meta.checkpoint_id === written;
  return (cp) => mine(cp) && Date.parse(cp.meta.created_at) >= since;
}

/**
 * The delivery rule of the hosts that keep a Session (the plugin, standalone pi; core's seams are in
 * openclaw-core/restore-seams.ts): each restore tried once, a block carried until its turn ends.
 */
export class RestoreDelivery {
  /** the block the requests carry until the turn ends */
  pending: string | null = null;
  /** the block the previous request carried (null: none): another one rewrites the system prompt */
  private sent: string | null = null;
  /** ids whose checkpoints count as this session's (the pre-rotation id after a successor) */
  private readonly previousIds = new Set<string>();
  /** the restores tried ("resume", pi's compaction entry ids): one look-up each per process */
  private readonly tried = new Set<string>();

  /** `bundlePrevious`: a resume reads after the previous session's uncheckpointed state is bundled (spec §7.3) */
  constructor(
    private readonly site: RestoreSite,
    private readonly bundlePrevious: () => Promise<unknown>,
  ) {}

  /** True the first time `key` is asked for. */
  once(key: string): boolean {
    if (this.tried.has(key)) return false;
    this.tried.add(key);
    return true;
  }

  /** The block owed to `sessionId`: its checkpoints, the pre-rotation ids' and (post-compaction) `owedFor`'s. */
  async block(sessionId: string, kind: RestoreKind, owedFor: readonly string[] = []): Promise<string | null> {
    if (kind === "resume") await this.bundlePrevious();
    const ids = [...new Set([sessionId, ...this.previousIds, ...(kind === "resume" ? [] : owedFor)])];
    return (await owedRestoreBlock(this.site, kind, ids))?.text ?? null;
  }

  /** A request's block (owed after a compaction of `owedFor`, or a new session's resume) and whether it changed. */
  async forRequest(sessionId: string, owedFor: readonly string[], history: ReadonlyArray<{ role: string }>) {
    const owed = owedFor.includes(sessionId) && !this.pending;
    if (owed) this.pending = await this.block(sessionId, "post-compaction", owedFor);
    if (!this.tried.has("resume")) {
      this.tried.add("resume");
      // a new session: no reply and no compaction summary in its history yet
      if (!this.pending && !history.some(notFresh)) this.pending = await this.block(sessionId, "resume");
    }
    const changed = this.pending !== this.sent;
    this.sent = this.pending;
    return { block: this.pending, changed };
  }

  /** The session went on under a successor id: `from`'s checkpoints stay its own, and no resume is owed. */
  rotated(from: string): void {
    this.previousIds.add(from);
    this.once("resume");
  }
}
