/**
 * The plugin's own compaction ("checkpoint" mode; "host" mode's fallback): the last history seen is cut at
 * a turn boundary and checkpointed. The runtime's transcript is untouched: assemble applies the view (a cut
 * count checked against the message at the cut), kept in the key's Session and in `own-compaction.json`.
 */
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { estimateContextTokens } from "../agents/gauge/context-gauge.js";
import { sessionAt, sessionRegistry } from "../agents/engine/cache-budget.js";
import type { OwnCompactionView } from "../agents/engine/session.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import { writeFileAtomic } from "../infra/atomic-file.js";
import { readTextCapped } from "../infra/regular-file.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import { compactionOutcomeSince, isCheckpointCompactionDetails } from "../agents/engine/compaction.js";
import { canonicalSessionKey, stateSessionDir } from "../infra/session-dir.js";
import type { CompactParams, CompactResult, DelegateCompaction } from "./engine-types.js";
import { markOf } from "./session-file.js";
import { DEFAULT_WINDOW, keepSlot, type SessionSlot, type SlotOptions, warnFailure } from "./session-slot.js";

/** Share of the window the kept messages may take (pi's keepRecentTokens is 20k of 200k). */
const KEEP_SHARE = 0.1;

/** The view holds a summary of ≤ 2,000 tokens: a larger file is not ours and is not read. */
const VIEW_FILE_MAX_BYTES = 1024 * 1024;

/** The view in memory (the key's Session's `lasting.ownCompaction`) may be ahead of its file. */
const idOf = (stateDir: string, sessionKey: string) => `${path.resolve(stateDir)}\u0000${sessionKey}`;

const fileOf = (stateDir: string, sessionKey: string) => path.join(stateSessionDir(stateDir, sessionKey), "own-compaction.json");

export async function ownCompactionView(stateDir: string, sessionKey: string, sessionId: string): Promise<OwnCompactionView | null> {
  const mem = sessionRegistry().peek(idOf(stateDir, sessionKey))?.lasting.ownCompaction;
  if (mem) return mem.sessionId === sessionId ? mem : null;
  try {
    const v = JSON.parse(await readTextCapped(nodeFsOps, fileOf(stateDir, sessionKey), VIEW_FILE_MAX_BYTES)) as OwnCompactionView;
    if (typeof v?.cut !== "number" || typeof v.summary !== "string" || typeof v.mark !== "string") return null;
    sessionAt(path.resolve(stateDir), sessionKey).lasting.ownCompaction = v;
    return v.sessionId === sessionId ? v : null;
  } catch {
    return null;
  }
}

/** What assemble sends: the summary and the messages after the cut; the history as is without a view that fits it. */
export function applyOwnCompaction(view: OwnCompactionView | null, messages: AgentMessage[]): AgentMessage[] {
  if (!view || view.cut <= 0 || messages.length < view.cut || markOf(messages[view.cut - 1]) !== view.mark) return messages;
  const at = typeof view.at === "number" && Number.isFinite(view.at) ? view.at : Date.now();
  const summary = { role: "compactionSummary", summary: view.summary, tokensBefore: view.tokensBefore, timestamp: at } as unknown as AgentMessage;
  return [summary, ...messages.slice(view.cut)];
}

/** Where to cut `history`: at a user turn's start after `after`, keeping about `keepTokens`. 0: nothing to cut. */
export function chooseCut(history: readonly AgentMessage[], keepTokens: number, after: number): number {
  // one pass from the end; a user message starts a turn once an earlier one is found (a cut before the
  // first would compact only what precedes the first request): `at` waits for that, with the tokens kept from it
  let kept = 0;
  let cut = 0;
  let last = 0;
  for (let i = history.length - 1, at = -1, keptAt = 0; i >= 0; i--) {
    // chars/4 of the message itself (estimateContextTokens would take a reply's usage for the whole prefix)
    kept += estimateTextTokens(safeJson(history[i]));
    if ((history[i] as { role?: string }).role !== "user") continue;
    if (at >= 0) {
      last ||= at;
      if (keptAt > keepTokens) break;
      cut = at;
    }
    at = i;
    keptAt = kept;
  }
  // nothing fits the keep budget, or no further than before: keep the last turn only
  if (cut <= after) cut = last;
  return cut > after ? cut : 0;
}

export interface CompactionOptions extends SlotOptions {
  /** `delegateCompactionToRuntime` from `openclaw/plugin-sdk/core` */
  delegateCompaction: DelegateCompaction;
}

/**
 * compact(): "checkpoint" mode compacts the last history itself; otherwise (or without a whole
 * history or a checkpoint) the compaction checkpoint, then the runtime's compaction with our fallback.
 */
export async function compactSession(
  opts: CompactionOptions,
  params: CompactParams,
  slotOf: () => Promise<SessionSlot>,
  cwd: string,
): Promise<CompactResult> {
  let slot: SessionSlot | null = null;
  try {
    slot = await slotOf();
    // the whole history is needed to cut it (a slot made after the turn's assemble has one turn)
    if (opts.config.compaction === "checkpoint" && slot.lastIsHistory && slot.lastMessages.length > 0) {
      const result = await compactOwn(opts, slot, params, cwd);
      if (result && (result.ok || !/checkpoint could not be written/.test(result.reason ?? ""))) return result;
    }
    await slot.beforeCompaction(params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens), cwd);
  } catch (e) {
    warnFailure(opts.logger, "compaction checkpoint", e);
  }
  // the runtime's result (or error) as without us, unless it fails or is late: then ours
  const result = await delegateWithFallback(opts, params, slot, cwd);
  // a compaction the plugin made itself: no restore block follows it
  if (!slot || !result.ok || !result.compacted || isCheckpointCompactionDetails(result.result?.details)) return result;
  try {
    const successor = result.result?.sessionTarget?.sessionId ?? result.result?.sessionId;
    const rotated = successor && successor !== params.sessionId ? successor : null;
    if (rotated) {
      keepSlot(opts, rotated, slot);
      slot.engine.restores.rotated(params.sessionId);
    }
    // the compaction provider rendered this compaction's checkpoint as its summary
    const stored = canonicalSessionKey(slot.sessionKey);
    const summarized = compactionOutcomeSince(opts.stateDir, stored, params.sessionId, 0)?.summarized;
    await slot.afterOwnCompaction(summarized ? null : rotated ? [params.sessionId, rotated] : [params.sessionId]);
  } catch (e) {
    warnFailure(opts.logger, "post-compaction restore", e);
  }
  return result;
}

/** compact() without the runtime, over the history the plugin saw last: checkpoint, archive, summary, view. */
async function compactOwn(opts: SlotOptions, slot: SessionSlot, params: CompactParams, cwd: string): Promise<CompactResult | undefined> {
  try {
    const startedAt = performance.now();
    const { sessionId } = params;
    const history = slot.lastMessages;
    const tokensBefore = params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens);
    const window = slot.data.window ?? (params.tokenBudget && params.tokenBudget > 0 ? params.tokenBudget : DEFAULT_WINDOW);
    const prev = await ownCompactionView(opts.stateDir, slot.sessionKey, sessionId);
    const after = prev && applyOwnCompaction(prev, history) !== history ? prev.cut : 0;
    // a compaction over a view still in place (the overflow-recovery retry) keeps half as much
    const cut = chooseCut(history, Math.max(500, Math.floor((window * KEEP_SHARE) / (after > 0 ? 2 : 1))), after);
    // already down to the summary and the last turn: nothing is lost by answering "compacted" with the same view
    if (cut === 0 && after > 0) return { ok: true, compacted: false, reason: "already compacted: the summary and the last turn" };
    if (cut === 0) return { ok: false, compacted: false, reason: "nothing to compact: the history is one turn" };
    // the checkpoint's durable write and the archive follow in the background; the view is written before returning
    const span = history.slice(after, cut);
    const { checkpoint } = await slot.beforeCompaction(tokensBefore, cwd, history.slice(0, cut), { span });
    if (!checkpoint) return { ok: false, compacted: false, reason: "the compaction checkpoint could not be written" };
    const rendered = slot.engine.compactionSummary(checkpoint);
    const view: OwnCompactionView = { sessionId, cut, mark: markOf(history[cut - 1]), summary: rendered.text, tokensBefore, checkpointId: checkpoint.meta.checkpoint_id, at: Date.now() };
    sessionAt(path.resolve(opts.stateDir), slot.sessionKey).lasting.ownCompaction = view;
    await writeFileAtomic(fileOf(opts.stateDir, slot.sessionKey), JSON.stringify(view));
    // OpenClaw 2026.9 records an owning engine's result in its transcript: the next history starts with it
    await slot.afterOwnCompaction(null);
    const compactionMs = Math.round((performance.now() - startedAt) * 100) / 100;
    const details = { contextManager: { checkpointId: view.checkpointId, cut, summaryTokens: rendered.tokens, compactionMs } };
    const tokensAfter = estimateContextTokens(applyOwnCompaction(view, history));
    return { ok: true, compacted: true, result: { summary: rendered.text, tokensBefore, tokensAfter, details } };
  } catch (e) {
    warnFailure(opts.logger, "own compaction", e);
    return undefined;
  }
}

function safeJson(m: unknown): string {
  try {
    return JSON.stringify(m) ?? "";
  } catch {
    return "";
  }
}

/** "host" mode: the runtime's compaction within the deadline, else (or on failure) the plugin's own. */
async function delegateWithFallback(
  opts: CompactionOptions,
  params: CompactParams,
  slot: SessionSlot | null,
  cwd: string,
): Promise<CompactResult> {
  const ms = opts.config.compactionDeadlineMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  const running = Promise.resolve().then(() => opts.delegateCompaction(params));
  running.catch(() => undefined); // a late runtime compaction that fails later must not surface unhandled
  const outcome = await Promise.race([running, late])
    .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))
    .finally(() => clearTimeout(timer));
  const failed = outcome === "late" || outcome instanceof Error || (!outcome.ok && !/nothing to compact|already compacted/i.test(outcome.reason ?? ""));
  if (!failed) return outcome;
  const fallback = slot ? await compactOwn(opts, slot, params, cwd) : undefined;
  if (fallback?.ok) {
    opts.logger?.warn(`[context-manager] the runtime's compaction ${outcome === "late" ? `ran past ${ms} ms` : "failed"}: the checkpoint compaction took its place`);
    return fallback;
  }
  // no fallback possible: the runtime's answer as it was (an error is rethrown, as without us)
  if (outcome instanceof Error) throw outcome;
  return outcome === "late" ? await running : outcome;
}
