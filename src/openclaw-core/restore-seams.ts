/**
 * The restore seams core calls at its injection site (spec §8.2, §10.3): after a compaction, or
 * when a new session starts on the key, enqueue the block the Session API's delivery rule owes.
 * Core passes its own `enqueueSystemEvent`: this package imports no OpenClaw internals. Never throws.
 */
import { canonicalSessionKey } from "../infra/session-dir.js";
import type { WarnLogger } from "../infra/log-once.js";
import { compactionOutcomeSince } from "../agents/engine/compaction.js";
import { recoverPreviousSessions } from "../agents/engine/recover-previous-session.js";
import { type RestoreBlock, type RestoreParams, restoreConfigOf, seamKey } from "../agents/engine/restore-block.js";
import { owedRestoreBlock } from "../agents/engine/restore-delivery.js";

export type Enqueue = (text: string, opts: { sessionKey: string }) => unknown;

type SeamParams = RestoreParams & { sessionKey: string; sessionId: string; enqueue: Enqueue; logger?: WarnLogger };

/** The seam's block, enqueued; null when the key is not a string or nothing is owed. */
async function deliver(seam: string, params: SeamParams, owed: (stored: string) => Promise<RestoreBlock | null>) {
  if (seamKey(seam, params?.sessionKey, params?.logger) === null) return null;
  const block = await owed(canonicalSessionKey(params.sessionKey));
  if (block) params.enqueue(block.text, { sessionKey: params.sessionKey });
  return block;
}

/**
 * After any compaction: the block of the compaction checkpoint this session just wrote, never an
 * older one or another session's. OpenClaw 2026.9 can rotate the transcript during compaction:
 * `sessionId` is then the successor and `previousSessionId` the writer; both are "this session".
 */
export function onCompactionCompleted(
  params: SeamParams & { previousSessionId?: string; since: number },
): Promise<RestoreBlock | null> {
  return deliver("onCompactionCompleted", params, async (stored) => {
    const ids = params.previousSessionId ? [params.sessionId, params.previousSessionId] : [params.sessionId];
    // a checkpoint compaction: its summary is the restore, already in the history
    if (ids.some((id) => compactionOutcomeSince(params.stateDir, stored, id, params.since)?.summarized === true)) return null;
    return owedRestoreBlock(params, "post-compaction", ids, params.since);
  });
}

/** First turn of a new session id on a key that has a checkpoint from an earlier session. */
export function onSessionStarted(params: SeamParams): Promise<RestoreBlock | null> {
  return deliver("onSessionStarted", params, async (stored) => {
    try {
      const config = restoreConfigOf(params);
      const { stateDir, sessionId, fs, logger } = params;
      const recover = { stateDir, sessionKey: stored, sessionId, config, fs, logger };
      if (config.enabled) await recoverPreviousSessions(recover);
    } catch {
      // never throws; the block of the latest checkpoint goes out as before
    }
    return owedRestoreBlock(params, "resume", [params.sessionId]);
  });
}
