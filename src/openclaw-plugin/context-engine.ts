/**
 * The context manager as an OpenClaw context engine (openclaw ≥ 2026.9, `plugins.slots.contextEngine`), one
 * slot per session id (session-slot.ts); docs/openclaw-integration.md §6. Total: an error would make the host
 * quarantine the engine.
 *
 * Its own compaction ("checkpoint" mode; "host" mode's fallback): the last history seen is cut at a turn
 * boundary and checkpointed. The runtime's transcript is untouched: assemble applies the view (a cut count
 * checked against the message at the cut), kept in the key's Session and in `own-compaction.json`.
 */
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { HostModel } from "../agents/cache/cache-rules.js";
import { estimateContextTokens } from "../agents/gauge/context-gauge.js";
import { markHeartbeatTurn } from "../agents/messages/host-provenance.js";
import { cacheBudgetBytes, sessionAt, sessionRegistry } from "../agents/engine/cache-budget.js";
import { backgroundWritesSettled } from "../agents/engine/archive-hooks.js";
import { compactionOutcomeSince, isCheckpointCompactionDetails } from "../agents/engine/compaction.js";
import type { OwnCompactionView } from "../agents/engine/session.js";
import { userText } from "../agents/messages/read.js";
import { messageIdentity } from "../agents/state/thread-data.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import { writeFileAtomic } from "../infra/atomic-file.js";
import { readTextCapped } from "../infra/regular-file.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import { canonicalSessionKey, stateSessionDir } from "../infra/session-dir.js";
import { addCommitted, hasCommitted, markOf } from "./session-file.js";
import { DEFAULT_WINDOW, heldSlot, keepSlot, SessionSlot, type SlotOptions, warnFailure } from "./session-slot.js";
import type { AfterTurnParams, AssembleParams, AssembleResult, CommitTurnParams } from "./engine-types.js";
import type { CompactParams, CompactResult, ContextEngineShape, DelegateCompaction } from "./engine-types.js";

export const CONTEXT_ENGINE_ID = "context-manager";

/** Share of the window the kept messages may take (pi's keepRecentTokens is 20k of 200k). */
const KEEP_SHARE = 0.1;

/** The view holds a summary of ≤ 2,000 tokens: a larger file is not ours and is not read. */
const VIEW_FILE_MAX_BYTES = 1024 * 1024;

const fileOf = (stateDir: string, sessionKey: string) => path.join(stateSessionDir(stateDir, sessionKey), "own-compaction.json");

/** `delegateCompaction`: `delegateCompactionToRuntime` from `openclaw/plugin-sdk/core` */
export type CompactionOptions = SlotOptions & { delegateCompaction: DelegateCompaction };

/** The model OpenClaw runs the turn on, for the prompt-cache rules (every field optional across versions). */
function assembleModelOf(params: AssembleParams): HostModel {
  const m = params.runtimeSettings?.model;
  const retention = (params.runtimeContext?.promptCache as { retention?: unknown } | undefined)?.retention;
  return {
    provider: typeof m?.provider === "string" ? m.provider : null,
    id: typeof params.model === "string" ? params.model : typeof m?.resolved === "string" ? m.resolved : null,
    retention: typeof retention === "string" ? retention : null,
  };
}

export class ContextManagerContextEngine implements ContextEngineShape {
  readonly info: ContextEngineShape["info"] = {
    id: CONTEXT_ENGINE_ID,
    name: "Context manager (gauge, checkpoints, restore)",
    ownsCompaction: false, // true in "checkpoint" mode (constructor)
    // assemble reads the history before the admitted turn; commitTurn takes the accepted turn once
    transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" },
  };

  /** the slots this instance used (flushed at dispose), and those whose data it read for the turn at hand */
  private readonly used = new Set<SessionSlot>();
  private readonly fresh = new WeakSet<SessionSlot>();
  /** the slot this instance used for each session id: its turn's commit finds it after an eviction */
  private readonly mine = new Map<string, SessionSlot>();
  /** The history this instance's assemble saw, per session id, until the commit (the host holds it anyway). */
  private readonly assembled = new Map<string, AgentMessage[]>();

  constructor(private readonly opts: CompactionOptions) {
    sessionRegistry().setBudget(cacheBudgetBytes(opts.config, "sessions"));
    if (opts.config.enabled && opts.config.compaction === "checkpoint") this.info.ownsCompaction = true;
  }

  /** The session's slot, with what earlier instances left for its key read once per turn of this instance. */
  private async slotFor(sessionId: string, sessionKey: string | undefined, tokenBudget?: number): Promise<SessionSlot> {
    let slot = heldSlot(this.opts, sessionId, sessionKey);
    if (!slot) {
      // evicted since this instance's assemble: the slot it holds still has that history
      slot = this.mine.get(sessionId);
      if (!slot) this.fresh.add((slot = await SessionSlot.open(this.opts, sessionId, sessionKey, tokenBudget)));
      keepSlot(this.opts, sessionId, slot);
    }
    this.used.add(slot);
    this.mine.set(sessionId, slot);
    if (!this.fresh.has(slot)) {
      this.fresh.add(slot);
      await slot.reload();
    }
    return slot;
  }

  private cwdOf(params: { runtimeContext?: Record<string, unknown> }): string {
    return String(params.runtimeContext?.cwd ?? this.opts.workspaceDir ?? process.cwd());
  }

  async ingest(_params: unknown): Promise<{ ingested: boolean }> {
    return { ingested: false };
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const messages = (params as AssembleParams | undefined)?.messages ?? [];
    if (!this.opts.config.enabled || !Array.isArray(messages)) return { messages, estimatedTokens: hostEstimate(messages) };
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      // a compaction since this key's last history (a run that compacted and failed, a new instance)
      await slot.afterRuntimeCompaction(params.sessionId, messages, this.cwdOf({}));
      slot.lastMessages = messages;
      slot.lastIsHistory = true;
      this.assembled.set(params.sessionId, messages);
      const visible = applyOwnCompaction(await ownCompactionView(this.opts.stateDir, slot.sessionKey, params.sessionId), messages);
      const { block, changed } = await slot.engine.restores.forRequest(params.sessionId, slot.data.restoreFor, visible);
      const cache = { model: assembleModelOf(params), systemPromptChanged: changed };
      const request = await slot.engine.prepareRequest({ messages: visible, pendingPrompt: pendingPromptOf(messages, params.prompt), cache });
      slot.lastTokens = request.reading.tokens;
      return {
        messages: request.messages,
        // the assembled messages only: the host measures the pending prompt itself
        estimatedTokens: request.reading.tokens - request.pendingTokens,
        ...(block ? { systemPromptAddition: block } : {}),
      };
    } catch (e) {
      warnFailure(this.opts.logger, "assemble", e);
      return { messages, estimatedTokens: hostEstimate(messages) };
    }
  }

  async afterTurn(params: AfterTurnParams): Promise<void> {
    if (!this.opts.config.enabled) return;
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      // the live prompt of a heartbeat run carries no provenance yet: the flag says it
      const seen = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, params.prePromptMessageCount) : params.messages;
      const from = Math.max(0, Math.min(params.prePromptMessageCount ?? 0, seen.length));
      await slot.finishTurn(params, seen, seen.slice(from), this.cwdOf(params));
      this.fresh.delete(slot);
    } catch (e) {
      warnFailure(this.opts.logger, "afterTurn", e);
    }
  }

  // 2026.9's durable turns: the accepted turn as persisted, instead of afterTurn; a key seen before is a host retry
  async commitTurn(params: CommitTurnParams): Promise<{ status: "committed" | "duplicate" }> {
    if (!this.opts.config.enabled) return { status: "committed" };
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, Number(params.runtimeContext?.tokenBudget) || undefined);
      if (hasCommitted(slot.data, params.advancementKey)) {
        this.fresh.delete(slot);
        return { status: "duplicate" };
      }
      const turn = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, 0) : params.messages;
      addCommitted(slot.data, params.advancementKey);
      // without this turn's assemble (a restart, another instance) the gauge continues from disk
      const history = slot.lastIsHistory ? slot.lastMessages : this.assembled.get(params.sessionId);
      this.assembled.delete(params.sessionId);
      await slot.finishTurn(params, history ? withTurn(history, turn) : [...turn], turn, this.cwdOf(params), history !== undefined);
      this.fresh.delete(slot);
    } catch (e) {
      // a throw would keep the turn queued and degrade the next turns to "legacy": logged instead
      warnFailure(this.opts.logger, "commitTurn", e);
    }
    return { status: "committed" };
  }

  // "checkpoint" mode compacts the last history itself; otherwise (or without a whole history or a
  // checkpoint) the compaction checkpoint, then the runtime's compaction with our fallback
  async compact(params: CompactParams): Promise<CompactResult> {
    // no parameters to act on: the host's runtime gets the call as it would without us
    if (!this.opts.config.enabled || typeof params !== "object" || params === null) return this.opts.delegateCompaction(params);
    const cwd = this.cwdOf(params);
    let slot: SessionSlot | null = null;
    try {
      slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      // the whole history is needed to cut it (a slot made after the turn's assemble has one turn)
      if (this.opts.config.compaction === "checkpoint" && slot.lastIsHistory && slot.lastMessages.length > 0) {
        const result = await compactOwn(this.opts, slot, params, cwd);
        if (result && (result.ok || !/checkpoint could not be written/.test(result.reason ?? ""))) return result;
      }
      await slot.beforeCompaction(params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens), cwd);
    } catch (e) {
      warnFailure(this.opts.logger, "compaction checkpoint", e);
    }
    // the runtime's result (or error) as without us, unless it fails or is late: then ours
    const result = await delegateWithFallback(this.opts, params, slot, cwd);
    // a compaction the plugin made itself: no restore block follows it
    const ours = isCheckpointCompactionDetails(result.result?.details);
    if (!slot || !result.ok || !result.compacted || ours) return result;
    try {
      const successor = result.result?.sessionTarget?.sessionId ?? result.result?.sessionId;
      const rotated = successor && successor !== params.sessionId ? successor : null;
      if (rotated) {
        keepSlot(this.opts, rotated, slot);
        slot.engine.restores.rotated(params.sessionId);
      }
      // the compaction provider rendered this compaction's checkpoint as its summary
      const stored = canonicalSessionKey(slot.sessionKey);
      const summarized = compactionOutcomeSince(this.opts.stateDir, stored, params.sessionId, 0)?.summarized;
      await slot.afterOwnCompaction(summarized ? null : rotated ? [params.sessionId, rotated] : [params.sessionId]);
    } catch (e) {
      warnFailure(this.opts.logger, "post-compaction restore", e);
    }
    return result;
  }

  async dispose(): Promise<void> {
    // the slots stay for the next instance (in their Sessions); what they captured goes to disk now
    for (const slot of this.used) await slot.engine.flushNow().catch(() => undefined);
    this.used.clear();
    this.mine.clear();
    this.assembled.clear();
    await backgroundWritesSettled(); // compacted spans and knowledge records written after their checkpoints
  }
}

/** The host's messages as it would count them without us (pass-through paths); never throws. */
function hostEstimate(messages: unknown): number {
  try {
    // a hole or a non-message: counted without those
    return Array.isArray(messages) ? estimateContextTokens(messages.filter((m) => typeof m === "object" && m !== null)) : 0;
  } catch {
    return 0;
  }
}

/** The history before the turn, then the turn, without what the history already holds of it. */
function withTurn(before: readonly AgentMessage[], turn: readonly AgentMessage[]): AgentMessage[] {
  if (turn.length === 0) return [...before];
  const first = messageIdentity(turn[0]!);
  let cut = before.length;
  for (let i = before.length - 1; i >= 0 && i >= before.length - turn.length; i--) if (messageIdentity(before[i]!) === first) cut = i;
  return [...before.slice(0, cut), ...turn];
}

/** The turn's prompt when the history is fenced before it (the model reads it after `messages`). */
function pendingPromptOf(messages: readonly AgentMessage[], prompt: string | undefined): string | undefined {
  if (typeof prompt !== "string" || !prompt.trim()) return undefined;
  for (let i = messages.length - 1; i >= 0 && i >= messages.length - 4; i--) {
    if (messages[i]?.role === "user" && userText(messages[i]!) === prompt.trim()) return undefined;
  }
  return prompt;
}

export async function ownCompactionView(stateDir: string, sessionKey: string, sessionId: string): Promise<OwnCompactionView | null> {
  // the view in memory (the key's Session's `lasting.ownCompaction`) may be ahead of its file
  const mem = sessionRegistry().peek(`${path.resolve(stateDir)}\u0000${sessionKey}`)?.lasting.ownCompaction;
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
