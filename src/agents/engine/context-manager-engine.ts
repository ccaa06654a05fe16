/**
 * One run of a session key, as the hosts use it: its captured state (previous sessions bundled first,
 * spec §7.3), requests, tools, compactions and restores. Everything lasting is on disk or in the key's
 * Session (session.ts). Every public method is total: failures are logged once per kind.
 */
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint, SessionIdentity } from "../checkpoint/schema.js";
import type { CheckpointWriter } from "../checkpoint/writer.js";
import { readLatestCheckpoint } from "../checkpoint/files.js";
import { allowCheckpointEntries } from "../checkpoint/yaml.js";
import { type ContextReading, formatGaugeText, gaugeAction, gaugeMessage, readGauge } from "../gauge/context-gauge.js";
import { ContextState } from "../state/context-state.js";
import type { ToolResultEventLike } from "../state/capture-rules.js";
import type { NoteKind } from "../state/note-tool.js";
import { ARCHIVE_FILE, archiveDir, statArchive } from "../archive/store.js";
import { sweepIdleArchivesSoon } from "../archive/forget.js";
import { archiveWorker } from "../archive/worker/archive-client.js";
import type { SearchParams } from "../archive/search-params.js";
import { type RenderedCompactionSummary, renderCompactionSummary } from "../inject/compaction-summary.js";
import type { ReuseEstimate } from "../prompt-cost/reuse.js";
import { consoleWarnLogger, type OnceLogger } from "../../infra/log-once.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import { nextSlice } from "../../infra/process-services.js";
import type { SessionLog } from "./session.js";
import { sessionAt } from "./cache-budget.js";
import { type RecoverResult, recoverPreviousSessions } from "./recover-previous-session.js";
import { RequestLog, type RequestRecord } from "./request-log.js";
import { type ModelRequest, type PreparedRequest, prepareRequest, type RunStart, trimAhead } from "./request.js";
import { offloadPatch, warmAgedOffload } from "./request.js";
import { archiveCompactedSpanAfter, archiveMessages, searchForAgent } from "./archive-hooks.js";
import { type CompactionInput, type CompactionOptions, type CompactionStart } from "./compaction.js";
import { markCompactionSummarized, recordCompactionOutcome } from "./compaction.js";
import { isDuplicate, startAutoCheckpoint, startCompactionCheckpoint } from "./checkpoint-writes.js";
import { RestoreDelivery } from "./restore-delivery.js";
import type { ContextDecision, ContextManagerRuntimeValue, EngineCore, EngineSession } from "./runtime.js";

/** Longest a captured item waits in memory before it is written (see scheduleFlush). */
const FLUSH_DEBOUNCE_MS = 1000;
/** Longest stretch of captureInSlices before it lets the event loop run. */
const CAPTURE_SLICE_MS = 8;

export class ContextManagerEngine implements EngineCore {
  // the members EngineCore (runtime.ts) describes
  compactions: number;
  readonly log: OnceLogger;
  readonly identity: SessionIdentity & { sessionId: string };
  readonly requests: RequestLog;
  recall: EngineCore["recall"] = null;
  archiveAppends = 0;
  previous: Checkpoint | null | undefined = undefined;
  writer: CheckpointWriter | null = null;
  readonly storeWarned = new Set<string>();
  pendingWrite: Promise<Checkpoint | null> | null = null;
  recoveryDue = true;
  readonly restores: RestoreDelivery;

  private readonly sessionLog: SessionLog;
  private state: ContextState | null = null;
  private loading: Promise<ContextState | null> | null = null;
  private latestCheckpointAt: string | null = null;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly runtime: ContextManagerRuntimeValue,
    session: EngineSession,
  ) {
    // a clear error here, not an opaque TypeError deep inside (the hosts check the key first)
    if (hostSessionKey(runtime.sessionKey) === null) {
      throw new TypeError(`[context-manager] the session key must be a non-empty string, got ${describeBadKey(runtime.sessionKey)}`);
    }
    this.compactions = runtime.compactionCount ?? session.compactionsSoFar;
    const c = runtime.config; // the checkpoints this configuration writes stay readable (checkpoint/yaml.ts)
    allowCheckpointEntries(c.maxDecisions + c.maxExchanges + c.maxTools + 3 * c.maxFiles + c.maxOpenItems + c.maxLearnings + c.maxErrors);
    this.identity = {
      sessionKey: canonicalSessionKey(runtime.sessionKey),
      sessionId: session.sessionId,
      sessionFile: session.sessionFile,
      agentId: runtime.agentId ?? null,
      channel: runtime.channel ?? null,
      cwd: session.cwd ?? null,
    };
    this.sessionLog = sessionAt(runtime.stateDir, this.sessionKey).logFor(runtime.logger ?? consoleWarnLogger);
    this.log = this.sessionLog.once;
    this.requests = new RequestLog(`${runtime.stateDir}\u0000${this.sessionKey}`);
    const { stateDir, sessionKey, config, logger } = runtime; // the restore read goes through the default fs
    this.restores = new RestoreDelivery({ stateDir, sessionKey, config, logger }, () => this.ready());
    // idle keys' archives past the retention: swept in the background, once a day per process
    if (c.archive) sweepIdleArchivesSoon(runtime.stateDir, c.archiveRetentionDays, runtime.logger);
  }

  /** The host's key as stored: well-formed, and distinct for distinct host keys (infra/session-dir.ts). */
  get sessionKey(): string {
    return this.identity.sessionKey;
  }

  /** The shells' `session.engine`: the session is its own engine. */
  get engine(): this {
    return this;
  }

  storeOpts() {
    return { stateDir: this.runtime.stateDir, retention: this.runtime.config.retention, fs: this.runtime.fs };
  }

  // --- the captured state

  /** Loads state and the latest checkpoint once (concurrent events share the load); retried after a failure. */
  ensureState(): Promise<ContextState | null> {
    if (this.state) return Promise.resolve(this.state);
    this.loading ??= this.loadState().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async loadState(): Promise<ContextState | null> {
    try {
      // the latest checkpoint as read (undefined: unread or unreadable; the bundling then reads it itself)
      let known: Checkpoint | null | undefined;
      if (this.previous === undefined) {
        try {
          known = await readLatestCheckpoint(this.storeOpts(), this.sessionKey);
          this.log.clear("checkpoint read");
        } catch (e) {
          // an unreadable checkpoint dir must not stop capture: carry nothing forward
          this.log.fail("checkpoint read", e);
        }
        this.previous = known && known.meta.session_id === this.identity.sessionId ? known : null;
        this.latestCheckpointAt = known?.meta.created_at ?? null;
      }
      // the state files as the previous-session check (spec §7.3) read them, when it held nothing
      const preread = this.recoveryDue ? await this.recoverPrevious(known) : undefined;
      this.state = await ContextState.load({
        preread,
        stateDir: this.runtime.stateDir,
        sessionKey: this.sessionKey,
        sessionId: this.identity.sessionId,
        config: this.runtime.config,
        fs: this.runtime.fs,
        latestCheckpointAt: this.latestCheckpointAt,
        // this session's checkpoint holds what was captured before it (first call after a restart)
        coveredUntil: this.previous ? Date.parse(this.previous.meta.created_at) : null,
        logger: this.sessionLog.stateSink,
        ...(this.runtime.toolResultsFromMessages ? { toolResultsFromMessages: { cwd: this.identity.cwd ?? process.cwd() } } : {}),
      });
      this.log.clear("state load");
      return this.state;
    } catch (e) {
      this.log.fail("state load", e);
      return null;
    }
  }

  /** Bundles previous sessions' state (retried until it succeeds); returns the state files it read, if any. */
  async recoverPrevious(latest?: Checkpoint | null): Promise<RecoverResult["stateFiles"]> {
    const { stateDir, config, fs } = this.runtime;
    const ids = { sessionKey: this.sessionKey, sessionId: this.identity.sessionId };
    const r = await recoverPreviousSessions({ latest, stateDir, ...ids, config, fs, logger: this.sessionLog.stateSink });
    this.recoveryDue = r.failed > 0;
    return r.stateFiles;
  }

  /** State loaded (and a previous session's state bundled): the resume block reads after this. */
  async ready(): Promise<void> {
    await this.idle();
    await this.ensureState();
  }

  /** The hot path never waits for the disk: a crash loses at most FLUSH_DEBOUNCE_MS of capture. */
  scheduleFlush(state: ContextState): void {
    if (this.flushTimer || !state.dirty) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.writeState(state);
    }, FLUSH_DEBOUNCE_MS);
    this.flushTimer.unref?.();
  }

  /** `use` on the loaded state once no background write runs, then its flush scheduled; undefined: none, or failed. */
  async withState<T>(kind: string, use: (state: ContextState) => T | Promise<T>): Promise<T | undefined> {
    try {
      await this.idle();
      const state = await this.ensureState();
      if (!state) return undefined;
      const out = await use(state);
      this.scheduleFlush(state);
      return out;
    } catch (e) {
      this.log.fail(kind, e);
      return undefined;
    }
  }

  /** Waits for a background checkpoint write, so it sees a still state and its reset drops no newer capture. */
  async idle(): Promise<void> {
    while (this.pendingWrite) await this.pendingWrite;
  }

  /** What was captured goes to disk now (a run's or a session's end, tests). Never throws. */
  async flushNow(): Promise<void> {
    await this.idle();
    clearTimeout(this.flushTimer ?? undefined);
    this.flushTimer = null;
    if (this.state) await this.writeState(this.state);
  }

  async writeState(state: ContextState): Promise<void> {
    try {
      // ContextState.flush never throws; files still dirty afterwards = the write failed
      const hadChanges = state.dirty;
      await state.flush();
      if (hadChanges && !state.dirty) this.sessionLog.stateRecovered();
    } catch (e) {
      this.log.fail("state write", e);
    }
  }

  // --- requests and runs

  /** One model request: messages in, messages to send out, with the gauge's reading. */
  prepareRequest(request: ModelRequest): Promise<PreparedRequest> {
    return prepareRequest(this, request);
  }

  /** `context` event: capture, gauge, the auto checkpoint. `appendGauge` false: the cache policy places the line. */
  async onContext(messages: AgentMessage[], usage: ContextReading | undefined, appendGauge = true): Promise<ContextDecision> {
    const reading = readGauge(usage, messages, this.runtime.contextWindowTokens);
    try {
      await this.idle();
      const state = await this.ensureState();
      if (state) state.captureMessages(messages);
      const action = gaugeAction(reading, this.runtime.config);
      // a compaction is near: its archive append must not wait for the worker's start
      if (action !== "none" && this.runtime.config.archive) archiveWorker().prestart();
      let checkpointWrite: Promise<Checkpoint | null> | undefined;
      if (action === "checkpoint" && state && !isDuplicate(this, reading, state)) checkpointWrite = startAutoCheckpoint(this, state, reading);
      if (state) this.scheduleFlush(state);
      // "Checkpoint saved" on the call that starts the write: on disk before any compaction can run
      const text = formatGaugeText(reading, action, checkpointWrite !== undefined, this.requests.gaugePhrase);
      const appended = text && appendGauge ? [...messages, gaugeMessage(text)] : undefined;
      return { messages: appended, reading, checkpoint: null, gaugeText: text, gaugeAction: action, ...(checkpointWrite ? { checkpointWrite } : {}) };
    } catch (e) {
      this.log.fail("context handler", e);
      return { messages: undefined, reading, checkpoint: null };
    }
  }

  /** The last `count` messages of `history`, captured in slices: a turn's redaction holds up no other chat. */
  async captureInSlices(history: readonly AgentMessage[], count: number): Promise<void> {
    await this.withState("context handler", async (state) => {
      // every slice takes its turn (infra/process-services.ts), the first too: concurrent commits interleave
      await nextSlice();
      await this.idle();
      let since = performance.now();
      for (let end = Math.max(1, history.length - count + 1); end < history.length; end++) {
        state.captureMessages(history, end);
        if (performance.now() - since > CAPTURE_SLICE_MS) {
          await nextSlice();
          await this.idle();
          since = performance.now();
        }
      }
    });
  }

  /** The model's window, told after the engine was made (OpenClaw 2026.9: with the committed turn). */
  setContextWindow(tokens: number): void {
    if (Number.isSafeInteger(tokens) && tokens > 0) this.runtime.contextWindowTokens = tokens;
  }

  /** Compactions another engine instance of this session counted (OpenClaw 2026.9: one instance per turn). */
  noteCompactionsSoFar(n: number): void {
    if (Number.isSafeInteger(n) && n > this.compactions) this.compactions = n;
  }

  /** A run starts: a resumed history's old tool outputs aged from its first request on; the state loaded now. */
  startRun(entries: readonly unknown[]): void {
    warmAgedOffload(this, entries);
    void this.ready();
  }

  /** The run's last messages: the final reply has no request after it, so it is captured and written here. */
  async endTurn(messages: readonly AgentMessage[]): Promise<void> {
    if (messages.length > 0) await this.withState("agent_end capture", (state) => state.captureMessages(messages));
    await this.flushNow();
  }

  /** The latest request's cache-reuse estimate under the rules it was prepared for (none under other rules). */
  cacheReuse(): ReuseEstimate | null {
    const family = sessionAt(this.runtime.stateDir, this.sessionKey).cache.last.family;
    return family === "anthropic" || family === "openai" ? this.requests.cacheReuse(family) : null;
  }

  /** What `/context` shows of this run; the breakdown is of `next(latest request)` when given. */
  report(next?: (latest: RequestRecord) => RequestRecord) {
    const { runtime, requests, identity } = this;
    const latest = requests.latest;
    const window = runtime.contextWindowTokens || (latest?.contextWindow ?? 0);
    const settings = { contextWindow: window, checkpointThreshold: runtime.config.checkpointThreshold };
    const breakdown = latest ? requests.breakdown(settings, next ? next(latest) : latest) : undefined;
    const reuse = this.cacheReuse();
    return { runtime, sessionKey: this.sessionKey, sessionId: identity.sessionId, window, breakdown, reuse };
  }

  // --- tools

  /** `tool_result` event: Layer A capture. */
  async onToolResult(event: ToolResultEventLike, cwd: string): Promise<void> {
    await this.withState("tool_result handler", (state) => state.captureToolResult(event, cwd));
  }

  /** A tool's result: captured, and the patch that offloads it (docs/artifacts.md), or undefined. */
  async toolResult(event: ToolResultEventLike, cwd: string): Promise<ReturnType<typeof offloadPatch>> {
    await this.onToolResult(event, cwd);
    return offloadPatch(event, this);
  }

  /** The agent's context_note (a decision, open item or learning): recorded in the state; the tool's reply. */
  async note(kind: NoteKind, text: string): Promise<string> {
    const message = await this.withState("context_note", (state) => state.addNote(kind, text));
    return message ?? "Not recorded: the context state is unavailable right now.";
  }

  /** The agent's context_search over this key's archive: the tool's reply. */
  search(params: SearchParams): Promise<string> {
    return searchForAgent(this.runtime, params);
  }

  /**
   * At a run start: whether context_search is in the run's tools. It joins once (and stays) when a
   * trim is ahead in this run (its marker names the tool), the session compacted or the archive holds records.
   */
  async searchJoined(ahead: () => RunStart, compacted: () => boolean): Promise<boolean> {
    const state = sessionAt(this.runtime.stateDir, this.sessionKey).ourTools(this.identity.sessionId);
    if (state.searchJoined) return true;
    const archive = join(archiveDir(this.runtime.stateDir, this.sessionKey), ARCHIVE_FILE);
    const archived = async () => ((await statArchive(archive))?.size ?? 0) > 0;
    return state.decideSearchJoin(trimAhead(this, ahead()) || compacted() || (await archived()));
  }

  // --- compactions and restores

  /** The compaction checkpoint on disk before the host summarizes (never deduplicated); null on failure. */
  async onBeforeCompact(event: CompactionInput, cwd: string): Promise<Checkpoint | null> {
    const started = await startCompactionCheckpoint(this, event, cwd);
    const written = started ? await started.durable : null;
    // a checkpoint that did not reach the disk is restored by no block
    if (started && !written) recordCompactionOutcome(this.runtime.stateDir, this.sessionKey, this.identity.sessionId, null);
    return written;
  }

  /** The one entry of every compaction route: the compaction checkpoint, and the span archived. */
  async beforeCompaction(input: CompactionInput, opts: CompactionOptions): Promise<CompactionStart> {
    const { messagesToSummarize: toSummarize = [], turnPrefixMessages: prefix = [] } = input.preparation;
    const span = opts.span === undefined ? [...toSummarize, ...prefix] : opts.span;
    const archive = { compaction: opts.asCompaction ?? true };
    if (opts.use === "checkpoint") {
      const checkpoint = await this.onBeforeCompact(input, opts.cwd);
      // after the checkpoint is on disk (docs/archive.md)
      if (span) await archiveMessages(this, span, archive);
      return { checkpoint, durable: Promise.resolve(checkpoint) };
    }
    const started = await startCompactionCheckpoint(this, input, opts.cwd);
    const after = opts.archiveAfter;
    if (!started) {
      // no checkpoint: the span is still archived (the host's summary runs)
      if (span && !after) await archiveMessages(this, span, archive);
      else if (span) void archiveCompactedSpanAfter(this, span, after!, archive);
      return { checkpoint: null, durable: Promise.resolve(null) };
    }
    const archived = span ? archiveCompactedSpanAfter(this, span, after ? Promise.all([started.durable, after]) : started.durable, archive) : Promise.resolve();
    return { checkpoint: started.checkpoint, durable: after ? started.durable : archived.then(() => started.durable) };
  }

  afterCompaction(): void {
    this.compactions += 1;
  }

  /** The checkpoint as this compaction's summary (no restore block follows it); `previous`: the one before. */
  compactionSummary(checkpoint: Checkpoint, previous: string | null = null): RenderedCompactionSummary {
    markCompactionSummarized(this.runtime.stateDir, this.sessionKey, this.identity.sessionId);
    return renderCompactionSummary(checkpoint, { maxTokens: this.runtime.config.compactionSummaryMaxTokens, previousSummary: previous });
  }
}
