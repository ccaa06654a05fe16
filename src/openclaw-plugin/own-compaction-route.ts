/**
 * Which compaction `compact()` runs (issue 25):
 * - "checkpoint" mode: the plugin's own (own-compaction.ts), no model call; when no checkpoint
 *   could be written, or this process has seen no history of the session (a compaction in a
 *   process of its own: compact() receives no messages), the runtime's compaction runs instead
 *   (the spec's safety net);
 * - "host" mode: the runtime's (`delegateCompactionToRuntime`), and when it fails or runs past
 *   `compactionDeadlineMs`, the plugin's own takes its place (the late runtime compaction is
 *   left to finish or fail on its own; its result is ignored).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { CompactParams, CompactResult, DelegateCompaction } from "./engine-types.js";
import { compactOwn } from "./own-compaction.js";
import type { SessionSlot, SlotOptions } from "./session-slot.js";

const DEFAULT_WINDOW = 200_000;

/** True when `result` is a compaction the plugin made itself (no restore block follows it). */
export function isOwnCompaction(result: CompactResult): boolean {
  const d = result.result?.details as { contextManager?: { checkpointId?: unknown } } | undefined;
  return typeof d?.contextManager?.checkpointId === "string";
}

async function own(opts: SlotOptions, slot: SessionSlot, params: CompactParams, cwd: string): Promise<CompactResult> {
  const history: AgentMessage[] = slot.lastMessages;
  const tokens = params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens);
  const window = slot.data.window ?? (params.tokenBudget && params.tokenBudget > 0 ? params.tokenBudget : DEFAULT_WINDOW);
  const result = await compactOwn(slot, params.sessionId, history, tokens, window, cwd, opts.stateDir);
  if (result.ok && result.compacted) {
    slot.session.afterCompaction();
    slot.data.compactions = slot.engine.compactions;
    slot.data.restoreFor = [];
    slot.pendingRestore = null;
    // OpenClaw 2026.9 records an owning engine's result in its transcript: the next history then
    // starts with this summary, which is ours, not a compaction of the runtime's to catch up on
    slot.data.summaries.ownCompaction = true;
    await slot.persist();
  }
  return result;
}

/** "checkpoint" mode's compact(); null: not this mode (or no checkpoint), take the runtime's path. */
export async function compactRoute(
  opts: SlotOptions,
  params: CompactParams,
  slotOf: () => Promise<SessionSlot>,
  beginTurn: (slot: SessionSlot) => Promise<void>,
  cwd: string,
): Promise<CompactResult | null> {
  if (opts.config.compaction !== "checkpoint") return null;
  try {
    const slot = await slotOf();
    await beginTurn(slot);
    // the whole history is needed to cut it (a slot made after the turn's assemble has one turn)
    if (!slot.lastIsHistory || slot.lastMessages.length === 0) return null;
    const result = await own(opts, slot, params, cwd);
    if (!result.ok && /checkpoint could not be written/.test(result.reason ?? "")) return null;
    return result;
  } catch (e) {
    opts.logger?.warn(`[context-manager] own compaction failed: ${(e as Error)?.message ?? String(e)}`);
    return null;
  }
}

/** "host" mode: the runtime's compaction within the deadline, else (or on failure) the plugin's own. */
export async function delegateWithFallback(
  opts: SlotOptions,
  delegate: DelegateCompaction,
  params: CompactParams,
  slot: SessionSlot | null,
  cwd: string,
): Promise<CompactResult> {
  const ms = opts.config.compactionDeadlineMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ms);
  });
  let outcome: CompactResult | "late" | Error;
  const running = Promise.resolve().then(() => delegate(params));
  running.catch(() => undefined); // a late runtime compaction that fails later must not surface unhandled
  try {
    outcome = await Promise.race([running, late]);
  } catch (e) {
    outcome = e instanceof Error ? e : new Error(String(e));
  } finally {
    clearTimeout(timer);
  }
  const failed = outcome === "late" || outcome instanceof Error || (!outcome.ok && !/nothing to compact|already compacted/i.test(outcome.reason ?? ""));
  if (!failed) return outcome as CompactResult;
  if (slot) {
    try {
      const fallback = await own(opts, slot, params, cwd);
      if (fallback.ok) {
        opts.logger?.warn(`[context-manager] the runtime's compaction ${outcome === "late" ? `ran past ${ms} ms` : "failed"}: the checkpoint compaction took its place`);
        return fallback;
      }
    } catch (e) {
      opts.logger?.warn(`[context-manager] own compaction failed: ${(e as Error)?.message ?? String(e)}`);
    }
  }
  // no fallback possible: the runtime's answer as it was (an error is rethrown, as without us)
  if (outcome instanceof Error) throw outcome;
  return outcome === "late" ? await running : outcome;
}
