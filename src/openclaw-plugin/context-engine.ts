/**
 * The context manager as an OpenClaw context engine (openclaw ≥ 2026.9, `plugins.slots.contextEngine`), one
 * slot per session id (session-slot.ts); docs/openclaw-integration.md §6. Total: an error would make the host
 * quarantine the engine.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { HostModel } from "../agents/cache/cache-rules.js";
import { estimateContextTokens } from "../agents/gauge/context-gauge.js";
import { markHeartbeatTurn } from "../agents/messages/host-provenance.js";
import { cacheBudgetBytes, sessionRegistry } from "../agents/engine/cache-budget.js";
import { backgroundWritesSettled } from "../agents/engine/archive-hooks.js";
import { userText } from "../agents/messages/read.js";
import { messageIdentity } from "../agents/state/thread-data.js";
import { applyOwnCompaction, compactSession, type CompactionOptions, ownCompactionView } from "./own-compaction.js";
import { addCommitted, hasCommitted } from "./session-file.js";
import { heldSlot, keepSlot, SessionSlot, warnFailure } from "./session-slot.js";
import type {
  AfterTurnParams,
  AssembleParams,
  AssembleResult,
  CommitTurnParams,
  CompactParams,
  CompactResult,
  ContextEngineShape,
} from "./engine-types.js";

export const CONTEXT_ENGINE_ID = "context-manager";

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

  async compact(params: CompactParams): Promise<CompactResult> {
    // no parameters to act on: the host's runtime gets the call as it would without us
    if (!this.opts.config.enabled || typeof params !== "object" || params === null) return this.opts.delegateCompaction(params);
    const slot = () => this.slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
    return compactSession(this.opts, params, slot, this.cwdOf(params));
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

// 2026.9's fenced turns: assemble gets the history and the prompt apart, commitTurn the turn alone

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
