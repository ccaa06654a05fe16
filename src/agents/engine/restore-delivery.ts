/**
 * The one restore rule of every host (spec §8.2): which block is owed and, where a Session is kept, when.
 * Apart from restore-block.ts: this reads the Session registry, which the CLI's `restore` must not reach.
 */
import type { Checkpoint } from "../checkpoint/schema.js";
import { canonicalSessionKey } from "../../infra/session-dir.js";
import { type WarnLogger, warnSafely } from "../../infra/log-once.js";
import { compactionOutcomeSince } from "./compaction.js";
import { readCheckpointForInjection, type RestoreBlock, type RestoreKind, type RestoreParams } from "./restore-block.js";

const notFresh = (m: { role: string }): boolean => m.role === "assistant" || m.role === "compactionSummary";

/** Where a key's restore blocks are read: the host key as given (the read maps it to the stored key). */
export type RestoreSite = RestoreParams & { sessionKey: string; logger?: WarnLogger };

/**
 * The one delivery rule of every host: resume, a checkpoint of an earlier session (none of `ids`);
 * post-compaction (started at `since`), the checkpoint its hook wrote (none, logged, when it failed), else a
 * compaction checkpoint created since. `ids`: this session's, then its earlier ones.
 */
export async function owedRestoreBlock(
  site: RestoreSite,
  kind: RestoreKind,
  ids: ReadonlyArray<string | null>,
  since = 0,
): Promise<RestoreBlock | null> {
  const read = (accept: (cp: Checkpoint) => boolean) => readCheckpointForInjection(site.sessionKey, { ...site, kind, accept });
  if (kind === "resume") return read((cp) => !(cp.meta.session_id !== null && ids.includes(cp.meta.session_id)));
  const stored = canonicalSessionKey(site.sessionKey);
  let outcome: ReturnType<typeof compactionOutcomeSince> = null;
  for (const id of ids) {
    const o = compactionOutcomeSince(site.stateDir, stored, id, since);
    if (o && (!outcome || o.at > outcome.at)) outcome = o;
  }
  if (outcome?.checkpointId === null) {
    if (outcome.reported) return null;
    outcome.reported = true;
    warnSafely(
      site.logger,
      "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
    );
    return null;
  }
  const written = outcome?.checkpointId;
  const stands = (cp: Checkpoint) => (written ? cp.meta.checkpoint_id === written : Date.parse(cp.meta.created_at) >= since);
  return read((cp) => ids.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction" && stands(cp));
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
    // a new session (tried once): no reply and no compaction summary in its history yet
    const fresh = this.once("resume") && !this.pending && !history.some(notFresh);
    if (fresh) this.pending = await this.block(sessionId, "resume");
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
