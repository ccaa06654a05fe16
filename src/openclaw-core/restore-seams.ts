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
import { owedRestoreBlock } from "../agents/engine/compaction.js";

export type Enqueue = (text: string, opts: { sessionKey: string }) => unknown;

/**
 * After any compaction: the block of the compaction checkpoint this session just wrote, never an
 * older one or another session's. OpenClaw 2026.9 can rotate the transcript during compaction:
 * `sessionId` is then the successor and `previousSessionId` the writer; both are "this session".
 */
export async function onCompactionCompleted(
  params: RestoreParams & {
    sessionKey: string;
    sessionId: string;
    previousSessionId?: string;
    since: number;
    enqueue: Enqueue;
    logger?: WarnLogger;
  },
): Promise<RestoreBlock | null> {
  if (seamKey("onCompactionCompleted", params?.sessionKey, params?.logger) === null) return null;
  const ids = params.previousSessionId ? [params.sessionId, params.previousSessionId] : [params.sessionId];
  // a checkpoint compaction (issue 25): its summary is the restore, already in the history
  const stored = canonicalSessionKey(params.sessionKey);
  if (ids.some((id) => compactionOutcomeSince(params.stateDir, stored, id, params.since)?.summarized === true)) return null;
  const block = await owedRestoreBlock({ ...params, kind: "post-compaction", sessionIds: ids, bundlePrevious: async () => undefined });
  if (block) params.enqueue(block.text, { sessionKey: params.sessionKey });
  return block;
}

/** First turn of a new session id on a key that has a checkpoint from an earlier session. */
export async function onSessionStarted(
  params: RestoreParams & { sessionKey: string; sessionId: string; enqueue: Enqueue; logger?: WarnLogger },
): Promise<RestoreBlock | null> {
  if (seamKey("onSessionStarted", params?.sessionKey, params?.logger) === null) return null;
  const bundlePrevious = async () => {
    try {
      const config = restoreConfigOf(params);
      if (config.enabled) {
        await recoverPreviousSessions({ stateDir: params.stateDir, sessionKey: canonicalSessionKey(params.sessionKey), sessionId: params.sessionId, config, fs: params.fs, logger: params.logger });
      }
    } catch {
      // never throws; the block of the latest checkpoint goes out as before
    }
  };
  const block = await owedRestoreBlock({ ...params, kind: "resume", sessionIds: [params.sessionId], bundlePrevious });
  if (block) params.enqueue(block.text, { sessionKey: params.sessionKey });
  return block;
}
