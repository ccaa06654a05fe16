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
 * - `afterTurn`: captures the finished turn, writes the auto-80pct checkpoint
 *   at the threshold, flushes state, and ends a pending restore;
 * - `compact`: writes the compaction checkpoint, then delegates to OpenClaw's
 *   runtime compaction; a rotated (successor) session id inherits the engine.
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
import { archiveMessages, prefetchArchive, withAutoRecall } from "../agents/archive/archive-session.js";
import { readCheckpointForInjection, type RestoreKind } from "../agents/context-checkpoint-restore.js";
import type { ContextManagerConfig } from "../agents/context-manager-config.js";
import { estimateContextTokens } from "../agents/context-gauge.js";
import type { WarnLogger } from "../agents/log-once.js";
import { ContextManagerEngine } from "../agents/pi-extensions/context-manager-engine.js";
import { compactionEventWithoutPreparation } from "../agents/pi-extensions/outside-compaction-event.js";
import { agedMessages } from "../agents/artifacts/extension-hooks.js";
import { newRuntimeCompaction, type SummaryWatch } from "./runtime-compaction.js";
import { debugLog } from "../agents/debug-log.js";
import { markHeartbeatTurn } from "../agents/host-provenance.js";
import type {
  AssembleResult,
  CompactParams,
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
  /** compaction summaries seen, to notice the runtime's own compactions */
  summaries: SummaryWatch;
}

export function createContextManagerContextEngine(opts: ContextManagerContextEngineOptions): ContextEngineShape {
  const sessions = new Map<string, SessionSlot>();

  const slotFor = (sessionId: string, sessionKey: string | undefined, tokenBudget?: number): SessionSlot => {
    let slot = sessions.get(sessionId);
    if (slot) return slot;
    const key = sessionKey?.trim() || `openclaw:${sessionId}`;
    const engine = new ContextManagerEngine(
      {
        sessionKey: key,
        contextWindowTokens: tokenBudget && tokenBudget > 0 ? tokenBudget : DEFAULT_WINDOW,
        stateDir: opts.stateDir,
        config: opts.config,
        agentId: opts.agentId ?? key.match(/^agent:([^:]+):/)?.[1] ?? null,
        channel: key.startsWith("agent:") ? (key.split(":")[2] ?? null) : null,
        hostInjectsRestore: true,
        logger: opts.logger,
      },
      { sessionId, sessionFile: null, compactionsSoFar: 0, cwd: opts.workspaceDir ?? null },
    );
    slot = {
      engine,
      sessionKey: key,
      lastMessages: [],
      lastTokens: 0,
      pendingRestore: null,
      previousIds: new Set(),
      resumeChecked: false,
      summaries: { seen: undefined, ownCompaction: false },
    };
    sessions.set(sessionId, slot);
    prefetchArchive(engine); // background: the first compact() of this process stays cheap
    return slot;
  };

  const restoreBlock = async (slot: SessionSlot, sessionId: string, kind: RestoreKind): Promise<string | null> => {
    const mine = (id: string | null) => id !== null && (id === sessionId || slot.previousIds.has(id));
    // a previous session's uncheckpointed state is bundled first, so the resume block shows it
    if (kind === "resume") await slot.engine.ready();
    const block = await readCheckpointForInjection(slot.sessionKey, {
      stateDir: opts.stateDir,
      config: opts.config,
      kind,
      accept: (cp) => (kind === "resume" ? !mine(cp.meta.session_id) : mine(cp.meta.session_id) && cp.meta.trigger === "compaction"),
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
    // goes in; what the runtime keeps is archived again at the next compaction and deduplicated
    // by content hash then. Total (logs and goes on).
    await archiveMessages(slot.engine, slot.lastMessages);
  };

  /**
   * A compaction the runtime ran by itself since the plugin last saw this session's history
   * (in-attempt auto-compaction): checkpoint and archive what was seen before it and count it.
   * True when there was one (the caller then sends the post-compaction restore).
   */
  const afterRuntimeCompaction = async (slot: SessionSlot, messages: AgentMessage[], cwd: string): Promise<boolean> => {
    if (!newRuntimeCompaction(slot.summaries, messages) || slot.lastMessages.length === 0) return false;
    debugLog("openclaw plugin", `the runtime compacted ${JSON.stringify(slot.sessionKey)} by itself: compaction checkpoint and archive from the ${slot.lastMessages.length} messages seen last`);
    await beforeCompaction(slot, slot.lastTokens, cwd);
    slot.engine.onCompacted();
    return true;
  };
  const cwdOf = (params: { runtimeContext?: Record<string, unknown> }) => String(params.runtimeContext?.cwd ?? opts.workspaceDir ?? process.cwd());

  return {
    info: { id: CONTEXT_ENGINE_ID, name: "Context manager (gauge, checkpoints, restore)", ownsCompaction: false },

    async ingest() {
      return { ingested: false };
    },

    async assemble(params): Promise<AssembleResult> {
      const messages = params.messages;
      if (!opts.config.enabled) return { messages, estimatedTokens: estimateContextTokens(messages) };
      try {
        const slot = slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
        // a run that compacted inside the runtime and then failed never reached afterTurn
        if (await afterRuntimeCompaction(slot, messages, cwdOf({}))) {
          slot.pendingRestore = await restoreBlock(slot, params.sessionId, "post-compaction");
        }
        slot.lastMessages = messages;
        if (!slot.resumeChecked) {
          slot.resumeChecked = true;
          // a new session: no reply in its history yet
          if (!messages.some((m) => m.role === "assistant")) slot.pendingRestore = await restoreBlock(slot, params.sessionId, "resume");
        }
        // aged tool results as handle + preview (config offload; stashed off the request path, docs/artifacts.md)
        const sent = agedMessages(messages, slot.engine);
        const decision = await slot.engine.onContext(sent, undefined);
        slot.lastTokens = decision.reading.tokens;
        const base = decision.messages ?? sent;
        // after a compaction: archived fragments matching the latest requests (config autoRecall)
        const out = withAutoRecall(slot.engine, base, decision.reading.contextWindow)?.messages ?? base;
        return {
          messages: out,
          estimatedTokens: decision.reading.tokens,
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
        const slot = slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
        const compacted = await afterRuntimeCompaction(slot, params.messages, cwdOf(params));
        // the live prompt of a heartbeat run carries no provenance yet: the flag says it
        const seen = params.isHeartbeat === true ? markHeartbeatTurn(params.messages, params.prePromptMessageCount) : params.messages;
        slot.lastMessages = seen;
        slot.lastTokens = (await slot.engine.onContext(seen, undefined)).reading.tokens;
        await slot.engine.flushNow();
        // the turn's restore ends here; after a compaction inside it, the next request gets one
        slot.pendingRestore = compacted ? await restoreBlock(slot, params.sessionId, "post-compaction") : null;
      } catch (e) {
        warn("afterTurn", e);
      }
    },

    async compact(params: CompactParams): Promise<CompactResult> {
      if (!opts.config.enabled) return opts.delegateCompaction(params);
      const slot = slotFor(params.sessionId, params.sessionKey, params.tokenBudget);
      await beforeCompaction(slot, params.currentTokenCount ?? slot.lastTokens, cwdOf(params));
      // the runtime's result (or its error) is the host's business, exactly as without us
      const result = await opts.delegateCompaction(params);
      try {
        if (result.ok && result.compacted) {
          slot.engine.onCompacted();
          // the summary the next history starts with is this compaction's, not one to catch up on
          slot.summaries.ownCompaction = true;
          const successor = result.result?.sessionTarget?.sessionId ?? result.result?.sessionId;
          if (successor && successor !== params.sessionId) {
            slot.previousIds.add(params.sessionId);
            slot.resumeChecked = true;
            sessions.set(successor, slot);
          }
          slot.pendingRestore = await restoreBlock(slot, successor ?? params.sessionId, "post-compaction");
        }
      } catch (e) {
        warn("post-compaction restore", e);
      }
      return result;
    },

    async dispose() {
      for (const slot of new Set(sessions.values())) await slot.engine.flushNow().catch(() => undefined);
      sessions.clear();
    },
  };
}
