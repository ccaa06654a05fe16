/**
 * The context manager as an OpenClaw context engine (openclaw ≥ 2026.9,
 * `plugins.slots.contextEngine`): the no-patch route. A thin shell over the
 * same ContextManagerEngine the pi extension uses, one per session id.
 *
 * - `assemble`: captures the messages it has not seen, appends the gauge, and
 *   while a restore is pending (after a compaction, or the first turn of a new
 *   session on a key with an earlier checkpoint) returns the restore block as
 *   `systemPromptAddition`, for every model call of that turn;
 * - `ingest`: acknowledges (capture reads the history in assemble/afterTurn,
 *   which costs O(new messages) through the engine's cursor);
 * - `commitTurn` (2026.9's durable turns, once per advancement key) and `afterTurn`
 *   (other turns): capture the finished turn, write the auto-80pct checkpoint at the
 *   threshold, archive the turn, flush state, and end a pending restore;
 * - `compact`: writes the compaction checkpoint, then delegates to OpenClaw's
 *   runtime compaction; a rotated (successor) session id inherits the engine.
 *
 * OpenClaw 2026.9 makes an engine instance per logical turn: the slots are kept for the
 * process, and what must outlive it per key is in openclaw-session.json (session-file.ts).
 *
 * `ownsCompaction: false`: in-attempt auto-compaction stays with the runtime
 * and does not call compact() (docs/openclaw-integration.md §6). The plugin sees
 * it afterwards (a history starting with a summary it has not seen, in afterTurn
 * or the next assemble: runtime-compaction.ts) and then writes the compaction
 * checkpoint, archives, and sends the post-compaction restore with the next
 * request. Every method is total: an error never reaches the host (which would
 * quarantine the engine).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { HostModel } from "../agents/cache/cache-rules.js";
import { estimateContextTokens } from "../agents/gauge/context-gauge.js";
import { markHeartbeatTurn } from "../agents/messages/host-provenance.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../agents/config/context-manager-config.js";
import { reweighSession, sessionOf, setSessionBudget } from "../agents/engine/cache-budget.js";
import { backgroundWritesSettled } from "../agents/engine/archive-hooks.js";
import { canonicalSessionKey } from "../infra/session-key.js";
import { userText } from "../agents/messages/read.js";
import { messageIdentity } from "../agents/state/message-cursor.js";
import { applyOwnCompaction, ownCompactionView } from "./own-compaction.js";
import { compactRoute, delegateWithFallback, isOwnCompaction } from "./own-compaction-route.js";
import { addCommitted, hasCommitted } from "./session-file.js";
import { SessionSlot, type SlotOptions, warnFailure } from "./session-slot.js";
import { slotKeyOf } from "./slot-key.js";
import type {
  AfterTurnParams,
  AssembleParams,
  AssembleResult,
  CommitTurnParams,
  CommitTurnResult,
  CompactParams,
  CompactResult,
  ContextEngineInfo,
  ContextEngineShape,
  DelegateCompaction,
  IngestParams,
  IngestResult,
} from "./engine-types.js";

export const CONTEXT_ENGINE_ID = "context-manager";

export interface ContextManagerContextEngineOptions extends SlotOptions {
  /** `delegateCompactionToRuntime` from `openclaw/plugin-sdk/core` */
  delegateCompaction: DelegateCompaction;
}

/**
 * Slots live for the process, not for one engine instance: OpenClaw 2026.9 makes an instance per
 * logical turn, and a slot made afresh each turn would load the key's state and latest checkpoint
 * from disk on the model's path every turn (bench/plugin-turns.ts). A slot is held by its key's
 * Session (engine/session.ts `hostSlots`, by config and session id), weighed with it (a slot
 * weighs its last-seen history), shed first (its history) and evicted with it. An evicted slot's
 * engine flushes on its own timer; the session's next turn continues from disk (its state's
 * cursor), and a turn in flight from the slot its instance holds.
 */
const scopeOf = (opts: SlotOptions, sessionId: string): string => `${JSON.stringify(opts.config)}\u0000${sessionId}`;

function heldSlot(opts: SlotOptions, sessionId: string, sessionKey: unknown): SessionSlot | undefined {
  const id = `${opts.stateDir}\u0000${canonicalSessionKey(slotKeyOf(sessionKey, sessionId, opts.logger))}`;
  return sessionOf(id).hostSlots.get(scopeOf(opts, sessionId)) as SessionSlot | undefined;
}

/** Puts the slot in its key's Session under `sessionId`, and weighs the Session again. */
function keepSlot(opts: SlotOptions, sessionId: string, slot: SessionSlot): void {
  const id = `${opts.stateDir}\u0000${slot.engine.sessionKey}`;
  sessionOf(id).hostSlots.set(scopeOf(opts, sessionId), slot);
  reweighSession(id);
}

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

/**
 * The process's slot of a session, made when missing: the compaction provider
 * (compaction-provider.ts) uses the engine's slot, so one engine writes a key's state.
 */
export async function sharedSessionSlot(opts: SlotOptions, sessionId: string, sessionKey: string): Promise<SessionSlot> {
  let slot = heldSlot(opts, sessionId, sessionKey);
  if (slot) await slot.reload();
  else keepSlot(opts, sessionId, (slot = await SessionSlot.open(opts, sessionId, sessionKey)));
  return slot;
}

export class ContextManagerContextEngine implements ContextEngineShape {
  readonly info: ContextEngineInfo = {
    id: CONTEXT_ENGINE_ID,
    name: "Context manager (gauge, checkpoints, restore)",
    ownsCompaction: false, // true in "checkpoint" mode (constructor; issue 25)
    // assemble reads the history before the admitted turn; commitTurn takes the accepted turn once
    transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" },
  };

  /** the slots this instance used (flushed at dispose), and those whose data it read for the turn at hand */
  private readonly used = new Set<SessionSlot>();
  private readonly fresh = new WeakSet<SessionSlot>();
  /** the slot this instance used for each session id: its turn's commit finds it after an eviction */
  private readonly mine = new Map<string, SessionSlot>();
  /**
   * The history this instance's assemble saw, per session id, until the turn's commit: a slot
   * over the memory budget lets go of its copy (shedHistory), but the host holds this array for
   * the turn anyway, so keeping it costs nothing and the commit gauges the whole history.
   */
  private readonly assembled = new Map<string, AgentMessage[]>();

  constructor(private readonly opts: ContextManagerContextEngineOptions) {
    setSessionBudget(opts.config);
    if (opts.config.enabled && opts.config.compaction === "checkpoint") this.info.ownsCompaction = true;
  }

  private async slotFor(sessionId: string, sessionKey: string | undefined, tokenBudget?: number): Promise<SessionSlot> {
    let slot = heldSlot(this.opts, sessionId, sessionKey);
    if (!slot) {
      // evicted since this instance's assemble (other chats' turns in flight filled the cache):
      // the slot this instance holds still has the history that assemble saw, and the commit
      // gauges it whole instead of continuing from the tokens recorded a turn earlier (which
      // count the turns the host has dropped since, and miss what it added)
      const held = this.mine.get(sessionId);
      if (held) keepSlot(this.opts, sessionId, held);
      else {
        slot = await SessionSlot.open(this.opts, sessionId, sessionKey, tokenBudget);
        keepSlot(this.opts, sessionId, slot);
        this.fresh.add(slot);
      }
      slot ??= held!;
    }
    this.used.add(slot);
    this.mine.set(sessionId, slot);
    return slot;
  }

  /**
   * What earlier instances and processes left for this key, read once per turn (or standalone
   * compaction) of this instance; a slot made by this instance has just read it.
   */
  private async beginTurn(slot: SessionSlot): Promise<void> {
    if (this.fresh.has(slot)) return;
    this.fresh.add(slot);
    await slot.reload();
  }

  private async finishTurn(slot: SessionSlot, sessionId: string, history: AgentMessage[], turn: readonly AgentMessage[], cwd: string, whole = true): Promise<void> {
    await slot.finishTurn(sessionId, history, turn, cwd, whole);
    this.fresh.delete(slot);
    reweighSession(`${this.opts.stateDir}\u0000${slot.engine.sessionKey}`); // its history grew (or it holds only the turn now)
    await slot.persist();
  }

  private cwdOf(params: { runtimeContext?: Record<string, unknown> }): string {
    return String(params.runtimeContext?.cwd ?? this.opts.workspaceDir ?? process.cwd());
  }

  private warn(what: string, e: unknown): void {
    warnFailure(this.opts.logger, what, e);
  }

  async ingest(_params: IngestParams): Promise<IngestResult> {
    return { ingested: false };
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const messages = (params as AssembleParams | undefined)?.messages ?? [];
    if (!this.opts.config.enabled || !Array.isArray(messages)) return { messages, estimatedTokens: hostEstimate(messages) };
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      await this.beginTurn(slot);
      // a compaction since the last history this key showed (a run that compacted and failed, a new instance)
      await slot.afterRuntimeCompaction(params.sessionId, messages, this.cwdOf({}));
      // owed to this session (or the successor it became), not to a new session on the key
      if (slot.owesRestoreTo(params.sessionId) && !slot.pendingRestore) slot.pendingRestore = await slot.restoreBlock(params.sessionId, "post-compaction");
      slot.lastMessages = messages;
      slot.lastIsHistory = true;
      this.assembled.set(params.sessionId, messages);
      // issue 25: after the plugin's own compaction, the summary and the kept messages are sent
      const visible = applyOwnCompaction(await ownCompactionView(this.opts.stateDir, slot.sessionKey, params.sessionId), messages);
      if (!slot.resumeChecked) {
        slot.resumeChecked = true;
        // a new session: no reply and no compaction summary in its history yet (a compacted
        // history may keep no reply; its post-compaction restore stands)
        const fresh = !slot.pendingRestore && !visible.some((m) => m.role === "assistant" || m.role === "compactionSummary");
        if (fresh) slot.pendingRestore = await slot.restoreBlock(params.sessionId, "resume");
      }
      // a restore block in the system prompt that the previous request did not have (or the reverse) rewrites the prompt
      const systemPromptChanged = (slot.pendingRestore ?? null) !== slot.lastSystemAddition;
      slot.lastSystemAddition = slot.pendingRestore ?? null;
      const cache = { model: assembleModelOf(params), systemPromptChanged };
      const request = await slot.session.prepareRequest({ messages: visible, pendingPrompt: pendingPromptOf(messages, params.prompt), cache });
      slot.lastTokens = request.reading.tokens;
      return {
        messages: request.messages,
        // the assembled messages only: the host measures the pending prompt itself
        estimatedTokens: request.reading.tokens - request.pendingTokens,
        ...(slot.pendingRestore ? { systemPromptAddition: slot.pendingRestore } : {}),
      };
    } catch (e) {
      this.warn("assemble", e);
      return { messages, estimatedTokens: hostEstimate(messages) };
    }
  }

  async afterTurn(params: AfterTurnParams): Promise<void> {
    if (!this.opts.config.enabled) return;
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      await this.beginTurn(slot);
      slot.learnWindow(params.runtimeContext);
      // the live prompt of a heartbeat run carries no provenance yet: the flag says it
      const seen = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, params.prePromptMessageCount) : params.messages;
      const from = Math.max(0, Math.min(params.prePromptMessageCount ?? 0, seen.length));
      await this.finishTurn(slot, params.sessionId, seen, seen.slice(from), this.cwdOf(params));
    } catch (e) {
      this.warn("afterTurn", e);
    }
  }

  // OpenClaw 2026.9's durable turns: the accepted turn's messages (admitted user entry to
  // terminal entry, as persisted) instead of afterTurn; a key seen before is a host retry
  async commitTurn(params: CommitTurnParams): Promise<CommitTurnResult> {
    if (!this.opts.config.enabled) return { status: "committed" };
    try {
      const slot = await this.slotFor(params.sessionId, params.sessionKey, Number(params.runtimeContext?.tokenBudget) || undefined);
      await this.beginTurn(slot);
      if (hasCommitted(slot.data, params.advancementKey)) {
        this.fresh.delete(slot);
        return { status: "duplicate" };
      }
      slot.learnWindow(params.runtimeContext);
      const turn = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, 0) : params.messages;
      addCommitted(slot.data, params.advancementKey);
      // without this turn's assemble (a restart, another instance) the gauge continues from disk
      const history = slot.lastIsHistory ? slot.lastMessages : this.assembled.get(params.sessionId);
      this.assembled.delete(params.sessionId);
      await this.finishTurn(slot, params.sessionId, history ? withTurn(history, turn) : [...turn], turn, this.cwdOf(params), history !== undefined);
    } catch (e) {
      // a throw would keep the turn queued and degrade the next turns to "legacy": logged instead
      this.warn("commitTurn", e);
    }
    return { status: "committed" };
  }

  async compact(params: CompactParams): Promise<CompactResult> {
    // no parameters to act on: the host's runtime gets the call as it would without us
    if (!this.opts.config.enabled || typeof params !== "object" || params === null) return this.opts.delegateCompaction(params);
    // issue 25: "checkpoint" mode compacts itself; "host" mode falls back to it (own-compaction-route.ts)
    const own = await compactRoute(this.opts, params, () => this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget), (slot) => this.beginTurn(slot), this.cwdOf(params));
    if (own) return own;
    let slot: SessionSlot | null = null;
    try {
      slot = await this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      await this.beginTurn(slot); // a standalone compaction's own instance, or between turns
      await slot.beforeCompaction(params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens), this.cwdOf(params));
    } catch (e) {
      this.warn("compaction checkpoint", e);
    }
    // the runtime's result (or its error) is the host's business, exactly as without us, unless
    // it fails or runs past the deadline: then the checkpoint compaction takes its place (issue 25)
    const result = await delegateWithFallback(this.opts, this.opts.delegateCompaction, params, slot, this.cwdOf(params));
    if (!slot || isOwnCompaction(result)) return result;
    try {
      if (result.ok && result.compacted) {
        const successor = result.result?.sessionTarget?.sessionId ?? result.result?.sessionId;
        const rotated = successor && successor !== params.sessionId ? successor : null;
        if (rotated) keepSlot(this.opts, rotated, slot);
        await slot.afterOwnCompaction(params.sessionId, rotated);
      }
    } catch (e) {
      this.warn("post-compaction restore", e);
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

/**
 * The host's messages as it would count them without us, for the pass-through paths: never
 * throws (a fallback that threw would put our error on the host's reply path); holes and
 * non-messages count nothing.
 */
function hostEstimate(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  try {
    return estimateContextTokens(messages);
  } catch {
    // a hole or a non-message in it: counted without those (a copy only on this path)
    try {
      return estimateContextTokens(messages.filter((m): m is AgentMessage => typeof m === "object" && m !== null));
    } catch {
      return 0;
    }
  }
}

// OpenClaw 2026.9's fenced turns (`currentTurnFence: "before-current-turn-entry-v1"`): assemble
// gets the history before the turn and the turn's prompt apart, commitTurn the turn alone; these
// put the two back together for the capture and the request (engine/request.ts)

/**
 * The history before the turn (as assemble saw it) followed by the turn, without the part of
 * the turn the history already holds (the cursor would take a repeated message as new).
 */
function withTurn(before: readonly AgentMessage[], turn: readonly AgentMessage[]): AgentMessage[] {
  if (turn.length === 0) return [...before];
  const first = messageIdentity(turn[0]!);
  let cut = before.length;
  for (let i = before.length - 1; i >= 0 && i >= before.length - turn.length; i--) if (messageIdentity(before[i]!) === first) cut = i;
  return [...before.slice(0, cut), ...turn];
}

/**
 * The turn's prompt when the history is fenced before it (OpenClaw 2026.9's durable turns): the
 * model reads it after `messages`, so the gauge counts it and the automatic recall queries it.
 * Undefined when there is no prompt or the history already ends with it.
 */
function pendingPromptOf(messages: readonly AgentMessage[], prompt: string | undefined): string | undefined {
  if (typeof prompt !== "string" || !prompt.trim()) return undefined;
  for (let i = messages.length - 1; i >= 0 && i >= messages.length - 4; i--) {
    if (messages[i]?.role === "user" && userText(messages[i]!) === prompt.trim()) return undefined;
  }
  return prompt;
}

export function createContextManagerContextEngine(opts: ContextManagerContextEngineOptions): ContextEngineShape {
  return new ContextManagerContextEngine(opts);
}
