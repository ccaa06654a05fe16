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
import { archiveMessages, prefetchArchive } from "../agents/engine/archive-hooks.js";
import { prepareRequest } from "../agents/engine/request.js";
import { readCheckpointForInjection, type RestoreKind } from "../agents/context-checkpoint-restore.js";
import type { ContextManagerConfig } from "../agents/context-manager-config.js";
import { estimateContextTokens } from "../agents/context-gauge.js";
import type { WarnLogger } from "../infra/log-once.js";
import { ContextManagerEngine } from "../agents/engine/context-manager-engine.js";
import { compactionEventWithoutPreparation } from "../agents/engine/outside-compaction-event.js";
import { newRuntimeCompaction } from "./runtime-compaction.js";
import { debugLog } from "../infra/debug-log.js";
import { globalSingleton } from "../infra/global-singleton.js";
import { LruMap } from "../agents/state/lru.js";
import path from "node:path";
import { markHeartbeatTurn } from "../agents/messages/host-provenance.js";
import { pendingPromptOf, withTurn } from "./fenced-turn.js";
import { addCommitted, hasCommitted, type PluginSessionData, PluginSessionFile } from "./session-file.js";
import type {
  AssembleResult,
  CompactParams,
  CommitTurnParams,
  CommitTurnResult,
  CompactResult,
  ContextEngineShape,
  DelegateCompaction,
} from "./engine-types.js";

export const CONTEXT_ENGINE_ID = "context-manager";
const DEFAULT_WINDOW = 200_000;

export interface ContextManagerContextEngineOptions {
  config: ContextManagerConfig;
  stateDir: string;
  /** `delegateCompactionToRuntime` from `openclaw/plugin-sdk/core` */
  delegateCompaction: DelegateCompaction;
  agentId?: string | null;
  logger?: WarnLogger;
  /** the agent's workspace (factory context): checkpoints record its drift state (issue 17) */
  workspaceDir?: string | null;
}

interface SessionSlot {
  engine: ContextManagerEngine;
  sessionKey: string;
  /** history seen by the last assemble/afterTurn (compact() receives no messages) */
  lastMessages: AgentMessage[];
  /** the gauge's last token reading, when compact() gets no currentTokenCount */
  lastTokens: number;
  /** restore block delivered in systemPromptAddition until the turn ends */
  pendingRestore: string | null;
  /** ids whose checkpoints count as this session's (the pre-rotation id after a successor) */
  previousIds: Set<string>;
  resumeChecked: boolean;
  /** what must outlive this process too (session-file.ts), read again when a turn begins */
  file: PluginSessionFile;
  data: PluginSessionData;
}

/**
 * Slots live for the process, not for one engine instance: OpenClaw 2026.9 makes an instance per
 * logical turn, and a slot made afresh each turn would load the key's state and latest checkpoint
 * from disk on the model's path every turn (bench/plugin-turns.ts). Keyed by state dir, config
 * and session id; the oldest of SLOT_CAP sessions is dropped (its engine flushes on its own timer).
 */
const SLOT_CAP = 64;
const processSlots = (): LruMap<string, SessionSlot> => globalSingleton("openclaw.contextManager.pluginSlots", () => new LruMap(SLOT_CAP));



export function createContextManagerContextEngine(opts: ContextManagerContextEngineOptions): ContextEngineShape {
  const scope = `${path.resolve(opts.stateDir)}\u0000${JSON.stringify(opts.config)}\u0000`;
  const slots = processSlots();
  const sessions = {
    get: (sessionId: string) => slots.get(scope + sessionId),
    set: (sessionId: string, slot: SessionSlot) => slots.touch(scope + sessionId, slot),
  };
  /** the slots this instance used (flushed at dispose), and those whose data it read for the turn at hand */
  const used = new Set<SessionSlot>();
  const fresh = new WeakSet<SessionSlot>();

  const slotFor = async (sessionId: string, sessionKey: string | undefined, tokenBudget?: number): Promise<SessionSlot> => {
    let slot = sessions.get(sessionId);
    if (slot) {
      used.add(slot);
      return slot;
    }
    const key = sessionKey?.trim() || `openclaw:${sessionId}`;
    const file = new PluginSessionFile(opts.stateDir, key);
    const data = await file.read();
    // the model's window the host gave with an earlier turn beats 2026.9's prompt budget
    const window = data.window ?? (tokenBudget && tokenBudget > 0 ? tokenBudget : DEFAULT_WINDOW);
    const engine = new ContextManagerEngine(
      {
        sessionKey: key,
        contextWindowTokens: window,
        stateDir: opts.stateDir,
        config: opts.config,
        agentId: opts.agentId ?? key.match(/^agent:([^:]+):/)?.[1] ?? null,
        channel: key.startsWith("agent:") ? (key.split(":")[2] ?? null) : null,
        hostInjectsRestore: true,
        toolResultsFromMessages: true,
        logger: opts.logger,
      },
      { sessionId, sessionFile: null, compactionsSoFar: data.compactions, cwd: opts.workspaceDir ?? null },
    );
    slot = {
      engine,
      sessionKey: key,
      lastMessages: [],
      lastTokens: 0,
      pendingRestore: null,
      previousIds: new Set(),
      resumeChecked: false,
      file,
      data,
    };
    sessions.set(sessionId, slot);
    used.add(slot);
    fresh.add(slot);
    prefetchArchive(engine); // background: the first compact() of this process stays cheap
    return slot;
  };

  const restoreBlock = async (slot: SessionSlot, sessionId: string, kind: RestoreKind): Promise<string | null> => {
    const mine = (id: string | null) => id !== null && (id === sessionId || slot.previousIds.has(id));
    // a compaction recorded by another instance (a standalone compact(), an earlier turn)
    const owed = (id: string | null) => id !== null && slot.data.restoreFor.includes(id);
    // a previous session's uncheckpointed state is bundled first, so the resume block shows it
    if (kind === "resume") await slot.engine.ready();
    const block = await readCheckpointForInjection(slot.sessionKey, {
      stateDir: opts.stateDir,
      config: opts.config,
      kind,
      accept: (cp) => (kind === "resume" ? !mine(cp.meta.session_id) : (mine(cp.meta.session_id) || owed(cp.meta.session_id)) && cp.meta.trigger === "compaction"),
    });
    return block?.text ?? null;
  };

  const warn = (what: string, e: unknown) => opts.logger?.warn(`[context-manager] ${what} failed: ${(e as Error)?.message ?? String(e)}`);

  /** The compaction checkpoint and the archive, from the history seen last (compact() gets no messages). */
  const beforeCompaction = async (slot: SessionSlot, tokensBefore: number, cwd: string): Promise<void> => {
    try {
      const event = compactionEventWithoutPreparation(slot.lastMessages.map((message) => ({ type: "message", message })), tokensBefore);
      await slot.engine.onBeforeCompact(event, cwd);
    } catch (e) {
      warn("compaction checkpoint", e);
    }
    // archive (docs/archive.md): no cut point reaches the plugin, so the whole last-seen history
    // goes in (deduplicated by content hash); each committed turn was archived already. Total.
    await archiveMessages(slot.engine, slot.lastMessages);
  };

  const persist = async (slot: SessionSlot): Promise<void> => {
    try {
      await slot.file.write(slot.data);
    } catch (e) {
      warn("session file", e);
    }
  };

  /** The host's model window (OpenClaw 2026.9 passes it in runtimeContext): the gauge's denominator. */
  const learnWindow = (slot: SessionSlot, runtimeContext: Record<string, unknown> | undefined): void => {
    const w = Number(runtimeContext?.modelContextWindow);
    if (!Number.isSafeInteger(w) || w <= 0) return;
    slot.data.window = w;
    slot.engine.setContextWindow(w);
  };

  /**
   * A compaction the runtime ran by itself since the plugin last saw this session's history
   * (in-attempt auto-compaction, or between turns): the compaction checkpoint from the captured
   * state (and what this instance saw before it), archive, count, and a restore owed to the turn.
   * True when there was one.
   */
  const afterRuntimeCompaction = async (slot: SessionSlot, sessionId: string, messages: AgentMessage[], cwd: string): Promise<boolean> => {
    const before = slot.data.summaries.seen;
    if (!newRuntimeCompaction(slot.data.summaries, messages)) {
      if (slot.data.summaries.seen !== before) await persist(slot);
      return false;
    }
    debugLog("openclaw plugin", `the runtime compacted ${JSON.stringify(slot.sessionKey)} by itself: compaction checkpoint from the captured state and the ${slot.lastMessages.length} messages seen last`);
    await beforeCompaction(slot, slot.lastTokens || slot.data.tokens, cwd);
    slot.engine.onCompacted();
    slot.data.compactions = slot.engine.compactions;
    slot.data.restoreFor = [sessionId];
    await persist(slot);
    return true;
  };

  /**
   * What earlier instances and processes left for this key, read once per turn (or standalone
   * compaction) of this instance; a slot made by this instance has just read it.
   */
  const beginTurn = async (slot: SessionSlot): Promise<void> => {
    if (fresh.has(slot)) return;
    fresh.add(slot);
    slot.data = await slot.file.read();
    if (slot.data.window) slot.engine.setContextWindow(slot.data.window);
    slot.engine.noteCompactionsSoFar(slot.data.compactions);
  };

  /**
   * Ends a turn: captures `history` (the whole history, `turn` its new part), 80% checkpoint,
   * flush, archive of the turn; the restore owed to this turn ends (a compaction inside it
   * owes one to the next).
   */
  const finishTurn = async (slot: SessionSlot, sessionId: string, history: AgentMessage[], turn: readonly AgentMessage[], cwd: string): Promise<void> => {
    const compacted = await afterRuntimeCompaction(slot, sessionId, history, cwd);
    slot.lastMessages = history;
    slot.lastTokens = (await slot.engine.onContext(history, undefined)).reading.tokens;
    await slot.engine.flushNow();
    // the turn's messages are only ever handed over here (a later compact() gets none)
    await archiveMessages(slot.engine, turn);
    if (!compacted) slot.data.restoreFor = [];
    slot.data.tokens = slot.lastTokens;
    slot.pendingRestore = compacted ? await restoreBlock(slot, sessionId, "post-compaction") : null;
    fresh.delete(slot);
    await persist(slot);
  };
  const cwdOf = (params: { runtimeContext?: Record<string, unknown> }) => String(params.runtimeContext?.cwd ?? opts.workspaceDir ?? process.cwd());

  return {
    info: {
      id: CONTEXT_ENGINE_ID,
      name: "Context manager (gauge, checkpoints, restore)",
      ownsCompaction: false,
      // assemble reads the history before the admitted turn; commitTurn takes the accepted turn once
      transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" },
    },

    async ingest() {
      return { ingested: false };
    },

    async assemble(params): Promise<AssembleResult> {
      const messages = params.messages;
      if (!opts.config.enabled) return { messages, estimatedTokens: estimateContextTokens(messages) };
      try {
        const slot = await slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
        await beginTurn(slot);
        // a compaction since the last history this key showed (a run that compacted and failed, a new instance)
        await afterRuntimeCompaction(slot, params.sessionId, messages, cwdOf({}));
        // owed to this session (or the successor it became), not to a new session on the key
        if (slot.data.restoreFor.includes(params.sessionId) && !slot.pendingRestore) slot.pendingRestore = await restoreBlock(slot, params.sessionId, "post-compaction");
        slot.lastMessages = messages;
        if (!slot.resumeChecked) {
          slot.resumeChecked = true;
          // a new session: no reply and no compaction summary in its history yet (a compacted
          // history may keep no reply; its post-compaction restore stands)
          const fresh = !slot.pendingRestore && !messages.some((m) => m.role === "assistant" || m.role === "compactionSummary");
          if (fresh) slot.pendingRestore = await restoreBlock(slot, params.sessionId, "resume");
        }
        const request = await prepareRequest(slot.engine, { messages, pendingPrompt: pendingPromptOf(messages, params.prompt) });
        slot.lastTokens = request.reading.tokens;
        return {
          messages: request.messages,
          // the assembled messages only: the host measures the pending prompt itself
          estimatedTokens: request.reading.tokens - request.pendingTokens,
          ...(slot.pendingRestore ? { systemPromptAddition: slot.pendingRestore } : {}),
        };
      } catch (e) {
        warn("assemble", e);
        return { messages, estimatedTokens: estimateContextTokens(messages) };
      }
    },

    async afterTurn(params) {
      if (!opts.config.enabled) return;
      try {
        const slot = await slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
        await beginTurn(slot);
        learnWindow(slot, params.runtimeContext);
        // the live prompt of a heartbeat run carries no provenance yet: the flag says it
        const seen = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, params.prePromptMessageCount) : params.messages;
        const from = Math.max(0, Math.min(params.prePromptMessageCount ?? 0, seen.length));
        await finishTurn(slot, params.sessionId, seen, seen.slice(from), cwdOf(params));
      } catch (e) {
        warn("afterTurn", e);
      }
    },

    // OpenClaw 2026.9's durable turns: the accepted turn's messages (admitted user entry to
    // terminal entry, as persisted) instead of afterTurn; a key seen before is a host retry
    async commitTurn(params: CommitTurnParams): Promise<CommitTurnResult> {
      if (!opts.config.enabled) return { status: "committed" };
      try {
        const slot = await slotFor(params.sessionId, params.sessionKey, Number(params.runtimeContext?.tokenBudget) || undefined);
        await beginTurn(slot);
        if (hasCommitted(slot.data, params.advancementKey)) {
          fresh.delete(slot);
          return { status: "duplicate" };
        }
        learnWindow(slot, params.runtimeContext);
        const turn = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, 0) : params.messages;
        addCommitted(slot.data, params.advancementKey);
        await finishTurn(slot, params.sessionId, withTurn(slot.lastMessages, turn), turn, cwdOf(params));
      } catch (e) {
        // a throw would keep the turn queued and degrade the next turns to "legacy": logged instead
        warn("commitTurn", e);
      }
      return { status: "committed" };
    },

    async compact(params: CompactParams): Promise<CompactResult> {
      if (!opts.config.enabled) return opts.delegateCompaction(params);
      let slot: SessionSlot | null = null;
      try {
        slot = await slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
        await beginTurn(slot); // a standalone compaction's own instance, or between turns
        await beforeCompaction(slot, params.currentTokenCount ?? (slot.lastTokens || slot.data.tokens), cwdOf(params));
      } catch (e) {
        warn("compaction checkpoint", e);
      }
      // the runtime's result (or its error) is the host's business, exactly as without us
      const result = await opts.delegateCompaction(params);
      if (!slot) return result;
      try {
        if (result.ok && result.compacted) {
          slot.engine.onCompacted();
          slot.data.compactions = slot.engine.compactions;
          // the summary the next history starts with is this compaction's, not one to catch up on
          slot.data.summaries.ownCompaction = true;
          const successor = result.result?.sessionTarget?.sessionId ?? result.result?.sessionId;
          if (successor && successor !== params.sessionId) {
            slot.previousIds.add(params.sessionId);
            slot.resumeChecked = true;
            sessions.set(successor, slot);
          }
          // owed to the next turn, which may run in another engine instance (or process)
          slot.data.restoreFor = successor && successor !== params.sessionId ? [params.sessionId, successor] : [params.sessionId];
          await persist(slot);
          slot.pendingRestore = await restoreBlock(slot, successor ?? params.sessionId, "post-compaction");
        }
      } catch (e) {
        warn("post-compaction restore", e);
      }
      return result;
    },

    async dispose() {
      // the slots stay for the next instance (processSlots); what they captured goes to disk now
      for (const slot of used) await slot.engine.flushNow().catch(() => undefined);
      used.clear();
    },
  };
}
