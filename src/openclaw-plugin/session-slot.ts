/**
 * One session of the plugin: the ContextManagerEngine of a session id, what the plugin saw of
 * its history, the restore it owes, and what must outlive the engine instance and the process
 * (openclaw-session.json, session-file.ts). Slots are shared by the engine instances of a
 * process (context-engine.ts); which instance has read `data` for its turn is the instance's.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ContextManagerEngine } from "../agents/engine/context-manager-engine.js";
import { SessionApi } from "../agents/engine/session-api.js";
import { archiveMessages } from "../agents/engine/archive-hooks.js";
import { agentAndChannelOf } from "../agents/engine/runtime.js";
import { compactionWithoutPreparation } from "../agents/engine/compaction-input.js";
import type { RestoreKind } from "../agents/engine/restore-block.js";
import type { ContextManagerConfig } from "../agents/config/context-manager-config.js";
import { debugLog } from "../infra/debug-log.js";
import { compactionOutcomeSince } from "../agents/engine/compaction-outcomes.js";
import { canonicalSessionKey } from "../infra/session-key.js";
import type { ContextUsage } from "@mariozechner/pi-coding-agent";
import { estimateContextTokens, usageTokensOf } from "../agents/gauge/context-gauge.js";
import type { WarnLogger } from "../infra/log-once.js";
import { newRuntimeCompaction } from "./runtime-compaction.js";
import { type PluginSessionData, PluginSessionFile } from "./session-file.js";
import { slotKeyOf } from "./slot-key.js";

const DEFAULT_WINDOW = 200_000;
/** a slot's engine, state and bookkeeping */
const SLOT_BASE_BYTES = 64 * 1024;
/**
 * Heap bytes of a held history per token of the gauge's reading of it (chars/4; one-byte strings,
 * message and content-block objects, tool call arguments): measured 860–980 KiB for ~100k
 * tokens of the real transcripts (`node --expose-gc --import tsx bench/slot-heap.ts --keys 60
 * --clone 1`: per slot 906–1,025 KiB, 48 KiB of it the slot itself with `--clone 0`). The
 * request log's latest request holds the same message objects (engine/request-log.ts).
 */
const BYTES_PER_TOKEN = 9;

/** What a slot takes from the engine's factory options. */
export interface SlotOptions {
  config: ContextManagerConfig;
  stateDir: string;
  agentId?: string | null;
  logger?: WarnLogger;
  /** the agent's workspace (factory context): checkpoints record its drift state (issue 17) */
  workspaceDir?: string | null;
  /** pi's compaction reserve from OpenClaw's config (openclaw-reserve.ts); absent: smartTrimReserveTokens */
  hostReserveTokens?: number;
}

/** Logs a failure the host must not see (every engine method is total). */
export function warnFailure(logger: WarnLogger | undefined, what: string, e: unknown): void {
  logger?.warn(`[context-manager] ${what} failed: ${(e as Error)?.message ?? String(e)}`);
}

export class SessionSlot {
  /**
   * The whole history as the last assemble saw it, with the turns committed since (compact()
   * receives no messages); only the last turn when the slot was made after the turn's assemble
   * (evicted, a restart): see lastIsHistory. It weighs on the sessions' memory budget.
   */
  lastMessages: AgentMessage[] = [];
  /** lastMessages is the whole history, not a turn committed without it */
  lastIsHistory = false;

  /** What this slot holds, for the process cache's memory budget (issue 24). */
  approxBytes(): number {
    return SLOT_BASE_BYTES + (this.lastIsHistory || this.engine.requests.latest ? this.lastTokens * BYTES_PER_TOKEN : 0);
  }

  /**
   * Over the sessions' memory budget, before the slot is evicted whole: it lets go of the history
   * it saw last (and the engine's request log of the request that held it), keeping its engine,
   * state and bookkeeping (SLOT_BASE_BYTES). A turn in flight is committed on the history its
   * engine instance's assemble saw (context-engine.ts keeps it for the turn); compact() has no
   * history until the next assemble shows it; the state is not read from disk again each turn.
   * True when it held a history.
   */
  shedHistory(): boolean {
    const held = this.lastIsHistory || this.lastMessages.length > 0;
    this.lastMessages = [];
    this.lastIsHistory = false;
    return this.engine.requests.forget() || held;
  }
  /** the gauge's last token reading, when compact() gets no currentTokenCount */
  lastTokens = 0;
  /** restore block delivered in systemPromptAddition until the turn ends */
  pendingRestore: string | null = null;
  /** the restore block the previous assemble put in the system prompt (null: none): another one rewrites the prompt */
  lastSystemAddition: string | null = null;
  /** ids whose checkpoints count as this session's (the pre-rotation id after a successor) */
  readonly previousIds = new Set<string>();
  resumeChecked = false;
  /** the engine's host-neutral API: what the plugin calls */
  readonly session: SessionApi;

  private constructor(
    readonly engine: ContextManagerEngine,
    readonly sessionKey: string,
    /** what must outlive this process too (session-file.ts), read again when a turn begins */
    private readonly file: PluginSessionFile,
    public data: PluginSessionData,
    private readonly opts: SlotOptions,
  ) {
    this.session = new SessionApi(engine);
  }

  /** The slot of a session id seen first by this process: its key's file read, its engine made. */
  static async open(opts: SlotOptions, sessionId: string, sessionKey: string | undefined, tokenBudget?: number): Promise<SessionSlot> {
    const key = slotKeyOf(sessionKey, sessionId, opts.logger);
    const file = new PluginSessionFile(opts.stateDir, key);
    const data = await file.read();
    // the model's window the host gave with an earlier turn beats 2026.9's prompt budget
    const window = data.window ?? (tokenBudget && tokenBudget > 0 ? tokenBudget : DEFAULT_WINDOW);
    const fromKey = agentAndChannelOf(key);
    const engine = new ContextManagerEngine(
      {
        sessionKey: key,
        contextWindowTokens: window,
        stateDir: opts.stateDir,
        config: opts.config,
        agentId: opts.agentId ?? fromKey.agentId,
        channel: fromKey.channel,
        hostInjectsRestore: true,
        toolResultsFromMessages: true,
        ...(opts.hostReserveTokens === undefined ? {} : { hostReserveTokens: opts.hostReserveTokens }),
        logger: opts.logger,
      },
      { sessionId, sessionFile: null, compactionsSoFar: data.compactions, cwd: opts.workspaceDir ?? null },
    );
    return new SessionSlot(engine, key, file, data, opts);
  }

  /** What earlier instances and processes left for this key (at the start of an instance's turn). */
  async reload(): Promise<void> {
    this.data = await this.file.read();
    if (this.data.window) this.engine.setContextWindow(this.data.window);
    this.engine.noteCompactionsSoFar(this.data.compactions);
  }

  async persist(): Promise<void> {
    try {
      await this.file.write(this.data);
    } catch (e) {
      warnFailure(this.opts.logger, "session file", e);
    }
  }

  /** The host's model window (OpenClaw 2026.9 passes it in runtimeContext): the gauge's denominator. */
  learnWindow(runtimeContext: Record<string, unknown> | undefined): void {
    const w = Number(runtimeContext?.modelContextWindow);
    if (!Number.isSafeInteger(w) || w <= 0) return;
    this.data.window = w;
    this.engine.setContextWindow(w);
  }

  /** True when a restore is owed to `sessionId` (this session, or the successor it became). */
  owesRestoreTo(sessionId: string): boolean {
    return this.data.restoreFor.includes(sessionId);
  }

  /**
   * The block owed to `sessionId`. Its ids: this one, the pre-rotation ids, and on a compaction the
   * ids of a compaction another instance recorded (`restoreFor`: a standalone compact(), an earlier turn).
   */
  async restoreBlock(sessionId: string, kind: RestoreKind): Promise<string | null> {
    const sessionIds = () => (kind === "resume" ? [sessionId, ...this.previousIds] : [...new Set([sessionId, ...this.previousIds, ...this.data.restoreFor])]);
    return (await this.session.restoreOwed(kind, sessionIds))?.text ?? null;
  }

  /** The compaction checkpoint and the archive, from the history seen last (compact() gets no messages). */
  async beforeCompaction(tokensBefore: number, cwd: string): Promise<void> {
    const event = compactionWithoutPreparation(this.lastMessages.map((message) => ({ type: "message", message })), tokensBefore);
    // archive (docs/archive.md): no cut point reaches the plugin, so the whole last-seen history
    // goes in (deduplicated by content hash); each committed turn was archived already
    await this.session.beforeCompaction(event, { use: "checkpoint", cwd, span: this.lastMessages });
  }

  /**
   * A compaction the runtime ran by itself since the plugin last saw this session's history
   * (in-attempt auto-compaction, or between turns): the compaction checkpoint from the captured
   * state (and what this instance saw before it), archive, count, and a restore owed to the turn.
   * True when there was one.
   */
  async afterRuntimeCompaction(sessionId: string, messages: AgentMessage[], cwd: string): Promise<boolean> {
    const before = this.data.summaries.seen;
    if (!newRuntimeCompaction(this.data.summaries, messages)) {
      if (this.data.summaries.seen !== before) await this.persist();
      return false;
    }
    debugLog("openclaw plugin", `the runtime compacted ${JSON.stringify(this.sessionKey)} by itself: compaction checkpoint from the captured state and the ${this.lastMessages.length} messages seen last`);
    await this.beforeCompaction(this.lastTokens || this.data.tokens, cwd);
    this.session.afterCompaction();
    this.data.compactions = this.engine.compactions;
    this.data.restoreFor = [sessionId];
    await this.persist();
    return true;
  }

  /**
   * Ends a turn (the instance then persists): captures `history` (the whole history, `turn` its
   * new part), 80% checkpoint, flush, archive of the turn; the restore owed to this turn ends (a
   * compaction inside it owes one to the next).
   */
  async finishTurn(sessionId: string, history: AgentMessage[], turn: readonly AgentMessage[], cwd: string, whole = true): Promise<void> {
    // a turn alone says nothing of a summary at the history's start: the next assemble looks
    const compacted = whole ? await this.afterRuntimeCompaction(sessionId, history, cwd) : false;
    await this.engine.captureInSlices(history, turn.length);
    this.lastTokens = (await this.engine.onContext(history, whole ? undefined : this.usageContinuing(history))).reading.tokens;
    this.lastMessages = whole ? history : [...turn];
    this.lastIsHistory = whole;
    // state (its files written side by side), then the turn's archive: one after the other on
    // purpose. Run together, the archive's redaction slices and the state writes' callbacks
    // shared each turn of the event loop, and its delay p99 rose from ~17 to ~25 ms
    // (bench/gateway.ts, docs/benchmarks.md). The turn's messages are only ever handed over
    // here (a later compact() gets none).
    await this.engine.flushNow();
    await archiveMessages(this.engine, turn);
    if (!compacted) this.data.restoreFor = [];
    this.data.tokens = this.lastTokens;
    this.pendingRestore = compacted ? await this.restoreBlock(sessionId, "post-compaction") : null;
  }

  /**
   * The gauge of a turn committed without the history before it (the process restarted since
   * the turn's assemble, or the commit's instance never saw it): the tokens recorded at the end of the last
   * turn (openclaw-session.json) plus this turn's, unless the model's usage in the turn already
   * counts the whole context. O(turn).
   */
  private usageContinuing(turn: readonly AgentMessage[]): ContextUsage {
    const tokens = usageTokensOf(turn) ?? this.data.tokens + estimateContextTokens(turn);
    const window = this.engine.runtime.contextWindowTokens;
    return { tokens, contextWindow: window, percent: window > 0 ? (tokens / window) * 100 : 0 };
  }

  /**
   * compact() ran and the runtime compacted (`successor`: the id it rotated the transcript to,
   * the caller keeps the slot under it too): count, and the restore owed to the next turn.
   */
  async afterOwnCompaction(sessionId: string, successor: string | null): Promise<void> {
    this.session.afterCompaction();
    this.data.compactions = this.engine.compactions;
    // the summary the next history starts with is this compaction's, not one to catch up on
    this.data.summaries.ownCompaction = true;
    if (successor) {
      this.previousIds.add(sessionId);
      this.resumeChecked = true;
    }
    // the compaction provider rendered this compaction's checkpoint as its summary: the history
    // carries it, no restore block beside it
    if (compactionOutcomeSince(this.opts.stateDir, canonicalSessionKey(this.sessionKey), sessionId, 0)?.summarized === true) {
      this.data.restoreFor = [];
      this.pendingRestore = null;
      await this.persist();
      return;
    }
    // owed to the next turn, which may run in another engine instance (or process)
    this.data.restoreFor = successor ? [sessionId, successor] : [sessionId];
    await this.persist();
    this.pendingRestore = await this.restoreBlock(successor ?? sessionId, "post-compaction");
  }
}
