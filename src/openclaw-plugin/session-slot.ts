/** One session id of the plugin: its engine, the history seen last, what outlives an engine (session-file.ts). */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ContextManagerEngine } from "../agents/engine/context-manager-engine.js";
import { archiveMessages } from "../agents/engine/archive-hooks.js";
import { agentAndChannelOf } from "../agents/engine/runtime.js";
import { sessionOf, sessionRegistry } from "../agents/engine/cache-budget.js";
import type { CompactionOptions } from "../agents/engine/compaction.js";
import type { ContextManagerConfig } from "../agents/config/context-manager-config.js";
import { debugLog } from "../infra/debug-log.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../infra/session-dir.js";
import { estimateContextTokens, usageTokensOf } from "../agents/gauge/context-gauge.js";
import { type WarnLogger, warnSafely } from "../infra/log-once.js";
import { newRuntimeCompaction, type PluginSessionData, PluginSessionFile } from "./session-file.js";

export const DEFAULT_WINDOW = 200_000;
type SummarySpan = Pick<CompactionOptions, "span" | "archiveAfter">;
type TurnOf = { sessionId: string; runtimeContext?: Record<string, unknown> };
/** a slot's engine, state and bookkeeping */
const SLOT_BASE_BYTES = 64 * 1024;
/**
 * Heap bytes of a held history per gauge token: 860–980 KiB per ~100k tokens of the real
 * transcripts (`node --expose-gc --import tsx bench/slot-heap.ts --keys 60 --clone 1`).
 */
const BYTES_PER_TOKEN = 9;

export interface SlotOptions {
  config: ContextManagerConfig;
  stateDir: string;
  agentId?: string | null;
  logger?: WarnLogger;
  /** the agent's workspace (factory context): checkpoints record its drift state */
  workspaceDir?: string | null;
  /** pi's compaction reserve from OpenClaw's config (index.ts); absent: smartTrimReserveTokens */
  hostReserveTokens?: number;
}

/** Logs a failure the host must not see (every engine method is total). */
export function warnFailure(logger: WarnLogger | undefined, what: string, e: unknown): void {
  logger?.warn(`[context-manager] ${what} failed: ${(e as Error)?.message ?? String(e)}`);
}

const badKeysSaid = new Set<string>();

/** The host's session key, else `openclaw:<session id>` (a key that is not a string is said once per kind). */
export function slotKeyOf(sessionKey: unknown, sessionId: string, logger?: WarnLogger): string {
  const key = hostSessionKey(sessionKey)?.trim();
  if (key) return key;
  if (sessionKey !== undefined && sessionKey !== "" && !badKeysSaid.has(describeBadKey(sessionKey))) {
    badKeysSaid.add(describeBadKey(sessionKey));
    warnSafely(logger, `[context-manager] the session key is ${describeBadKey(sessionKey)}, not a string: stored under openclaw:<session id>`);
  }
  return `openclaw:${sessionId}`;
}

// slots live in their key's Session (by config and session id): one made per turn would read the
// key's state from disk on the model's path (bench/plugin-turns.ts)
const scopeOf = (opts: SlotOptions, sessionId: string): string => `${JSON.stringify(opts.config)}\u0000${sessionId}`;

export function heldSlot(opts: SlotOptions, sessionId: string, sessionKey: unknown): SessionSlot | undefined {
  const id = `${opts.stateDir}\u0000${canonicalSessionKey(slotKeyOf(sessionKey, sessionId, opts.logger))}`;
  return sessionOf(id).hostSlots.get(scopeOf(opts, sessionId)) as SessionSlot | undefined;
}

/** Puts the slot in its key's Session under `sessionId`, and weighs the Session again. */
export function keepSlot(opts: SlotOptions, sessionId: string, slot: SessionSlot): void {
  const id = `${opts.stateDir}\u0000${slot.engine.sessionKey}`;
  sessionOf(id).hostSlots.set(scopeOf(opts, sessionId), slot);
  sessionRegistry().reweigh(id);
}

export class SessionSlot {
  /** The history the last assemble saw plus the turns committed since (compact() gets no messages). */
  lastMessages: AgentMessage[] = [];
  /** lastMessages is the whole history, not a turn committed without it */
  lastIsHistory = false;

  /** What this slot holds, for the process cache's memory budget. */
  approxBytes(): number {
    return SLOT_BASE_BYTES + (this.lastIsHistory || this.engine.requests.latest ? this.lastTokens * BYTES_PER_TOKEN : 0);
  }

  /** Over the memory budget: drops the history (a turn in flight commits on its own copy). True when it held one. */
  shedHistory(): boolean {
    const held = this.lastIsHistory || this.lastMessages.length > 0;
    this.lastMessages = [];
    this.lastIsHistory = false;
    return this.engine.requests.forget() || held;
  }
  /** the gauge's last token reading, when compact() gets no currentTokenCount */
  lastTokens = 0;

  private constructor(
    readonly engine: ContextManagerEngine,
    readonly sessionKey: string,
    private readonly file: PluginSessionFile,
    public data: PluginSessionData,
    private readonly opts: SlotOptions,
  ) {}

  static async open(opts: SlotOptions, sessionId: string, sessionKey: string | undefined, tokenBudget?: number): Promise<SessionSlot> {
    const key = slotKeyOf(sessionKey, sessionId, opts.logger);
    const file = new PluginSessionFile(opts.stateDir, key);
    const data = await file.read();
    // the window the host gave with an earlier turn beats 2026.9's prompt budget
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

  /** What earlier instances and processes left for this key. */
  async reload(): Promise<void> {
    this.data = await this.file.read();
    if (this.data.window) this.engine.setContextWindow(this.data.window);
    this.engine.noteCompactionsSoFar(this.data.compactions);
  }

  async persist(): Promise<void> {
    await this.file.write(this.data).catch((e: unknown) => warnFailure(this.opts.logger, "session file", e));
  }

  // the compaction checkpoint of `messages`, by default the history seen last, all archived (no cut point reaches
  // the plugin); `summary`: the checkpoint is the compaction's summary, `summary.span` archived
  beforeCompaction(tokensBefore: number, cwd: string, messages = this.lastMessages, summary?: SummarySpan) {
    const branchEntries = messages.map((message) => ({ type: "message", message }));
    const event = { branchEntries, preparation: { tokensBefore } };
    const opts: CompactionOptions = summary
      ? { use: "summary", cwd, asCompaction: false, ...summary }
      : { use: "checkpoint", cwd, span: messages };
    return this.engine.beforeCompaction(event, opts);
  }

  /** A compaction the runtime ran by itself since the last history: checkpoint, archive, count, restore owed. */
  async afterRuntimeCompaction(sessionId: string, messages: AgentMessage[], cwd: string): Promise<boolean> {
    const before = this.data.summaries.seen;
    if (!newRuntimeCompaction(this.data.summaries, messages)) {
      if (this.data.summaries.seen !== before) await this.persist();
      return false;
    }
    debugLog("openclaw plugin", `the runtime compacted ${JSON.stringify(this.sessionKey)} by itself: compaction checkpoint from the captured state and the ${this.lastMessages.length} messages seen last`);
    await this.beforeCompaction(this.lastTokens || this.data.tokens, cwd);
    await this.countCompaction([sessionId], false);
    return true;
  }

  /**
   * Ends a turn: learns the host's window, captures `history` (`turn` its new part; `whole` false: the history
   * is the turn alone), 80% checkpoint, flush, the turn's archive; the restore owed ends; weighed and persisted.
   */
  async finishTurn(at: TurnOf, history: AgentMessage[], turn: readonly AgentMessage[], cwd: string, whole = true): Promise<void> {
    // OpenClaw 2026.9 passes the model's window in runtimeContext: the gauge's denominator
    const w = Number(at.runtimeContext?.modelContextWindow);
    if (Number.isSafeInteger(w) && w > 0) {
      this.data.window = w;
      this.engine.setContextWindow(w);
    }
    // a turn alone says nothing of a summary at the history's start: the next assemble looks
    const compacted = whole ? await this.afterRuntimeCompaction(at.sessionId, history, cwd) : false;
    await this.engine.captureInSlices(history, turn.length);
    // a turn committed without its history: the last turn's tokens plus this one's, or its usage
    const tokens = whole ? 0 : (usageTokensOf(history) ?? this.data.tokens + estimateContextTokens(history));
    const window = this.engine.runtime.contextWindowTokens;
    const usage = { tokens, contextWindow: window, percent: window > 0 ? (tokens / window) * 100 : 0 };
    this.lastTokens = (await this.engine.onContext(history, whole ? undefined : usage)).reading.tokens;
    this.lastMessages = whole ? history : [...turn];
    this.lastIsHistory = whole;
    // state, then the turn's archive: together the loop's delay p99 rose from ~17 to ~25 ms (bench/gateway.ts)
    await this.engine.flushNow();
    await archiveMessages(this.engine, turn);
    if (!compacted) this.data.restoreFor = [];
    this.data.tokens = this.lastTokens;
    await this.owe(compacted ? at.sessionId : null);
    sessionRegistry().reweigh(`${this.opts.stateDir}\u0000${this.engine.sessionKey}`); // grew (or holds just the turn)
    await this.persist();
  }

  /** One more compaction, persisted; `ours`: the summary the next history starts with is ours (no catch-up). */
  private async countCompaction(restoreFor: string[], ours: boolean): Promise<void> {
    this.engine.afterCompaction();
    this.data.compactions = this.engine.compactions;
    if (ours) this.data.summaries.ownCompaction = true;
    this.data.restoreFor = restoreFor;
    await this.persist();
  }

  /** compact() compacted: `restoreFor` null, its summary is our checkpoint (no block beside it); else restored. */
  async afterOwnCompaction(restoreFor: string[] | null): Promise<void> {
    await this.countCompaction(restoreFor ?? [], true);
    await this.owe(restoreFor?.at(-1) ?? null);
  }

  /** The requests carry the post-compaction block owed to `sessionId` (and `restoreFor`'s ids) until the turn ends. */
  private async owe(sessionId: string | null): Promise<void> {
    const { restores } = this.engine;
    restores.pending = sessionId ? await restores.block(sessionId, "post-compaction", this.data.restoreFor) : null;
  }
}
