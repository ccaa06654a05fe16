/**
 * The one delivery rule every host uses (pi's before_agent_start, the plugin's assemble, core's seams):
 * which checkpoint a session may receive as its restore block, and that on a resume the previous
 * session's uncheckpointed state is bundled first (spec §7.3), so the block shows it. The hosts
 * only decide when a block is owed and how it travels.
 */
import type { Checkpoint } from "../checkpoint/schema.js";
import { type CompactionOutcome, compactionOutcomeSince } from "./compaction-outcomes.js";
import { canonicalSessionKey } from "../../infra/session-key.js";
import { consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";
import { readCheckpointForInjection, type RestoreBlock, type RestoreKind, type RestoreParams } from "./restore-block.js";

export interface OwedRestore extends RestoreParams {
  kind: RestoreKind;
  /** the host key as given: the read maps it to the stored key itself */
  sessionKey: string;
  /** this session's id first, then the ids it was known by (pre-rotation, earlier instances) */
  sessionIds: ReadonlyArray<string | null> | (() => ReadonlyArray<string | null>);
  /** post-compaction: when the compaction started (0: any time) */
  since?: number;
  logger?: WarnLogger;
  /** resume: bundles the previous session's uncheckpointed state before the read */
  bundlePrevious: () => Promise<unknown>;
}

/** The block owed to a session now, or null (no checkpoint it may receive). */
export async function owedRestoreBlock(p: OwedRestore): Promise<RestoreBlock | null> {
  if (p.kind === "resume") await p.bundlePrevious();
  const accept = restoreAcceptFilter({ ...p, sessionIds: typeof p.sessionIds === "function" ? p.sessionIds() : p.sessionIds });
  if (!accept) return null;
  const { bundlePrevious: _bundle, sessionIds: _ids, since: _since, sessionKey, ...read } = p;
  return readCheckpointForInjection(sessionKey, { ...read, accept });
}

/** resume: a checkpoint of an earlier session (none of `sessionIds`); post-compaction: see compactionCheckpointFilter. */
export function restoreAcceptFilter(
  p: Pick<OwedRestore, "kind" | "stateDir" | "sessionKey" | "since" | "logger"> & { sessionIds: ReadonlyArray<string | null> },
): ((cp: Checkpoint) => boolean) | null {
  if (p.kind === "resume") {
    return (cp) => {
      const id = cp.meta.session_id;
      return !(id !== null && p.sessionIds.includes(id));
    };
  }
  return compactionCheckpointFilter(p.stateDir, p.sessionKey, p.sessionIds, p.since ?? 0, p.logger);
}

/**
 * Which checkpoint may stand for the compaction that started at `since`, for a session known
 * by `sessionIds`; null (logged) when the compaction hook ran and could not write one. Without a
 * record of the hook, only a compaction checkpoint created at or after `since` is accepted.
 */
export function compactionCheckpointFilter(
  stateDir: string,
  sessionKey: string,
  sessionIds: ReadonlyArray<string | null>,
  since: number,
  logger: WarnLogger = consoleWarnLogger,
): ((cp: Checkpoint) => boolean) | null {
  const stored = canonicalSessionKey(sessionKey);
  let outcome: CompactionOutcome | null = null;
  for (const id of sessionIds) {
    const o = compactionOutcomeSince(stateDir, stored, id, since);
    if (o && (!outcome || o.at > outcome.at)) outcome = o;
  }
  if (outcome && outcome.checkpointId === null) {
    if (outcome.reported) return null;
    outcome.reported = true;
    try {
      logger.warn(
        "[context-manager] no restore block after this compaction: its checkpoint could not be written (see the compaction checkpoint failure); an older checkpoint is not sent in its place",
      );
    } catch {
      // a broken logger must not break the host
    }
    return null;
  }
  const mine = (cp: Checkpoint): boolean => sessionIds.includes(cp.meta.session_id ?? null) && cp.meta.trigger === "compaction";
  const written = outcome?.checkpointId;
  if (written) return (cp) => mine(cp) && cp.meta.checkpoint_id === written;
  return (cp) => mine(cp) && Date.parse(cp.meta.created_at) >= since;
}
