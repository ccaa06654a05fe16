/**
 * One run's captured state: loaded once with the latest checkpoint (previous sessions bundled
 * first, spec §7.3), flushed debounced; every change waits for the background write (`idle`).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Checkpoint, SessionIdentity } from "../checkpoint/schema.js";
import type { GaugeAction, GaugeReading } from "../gauge/context-gauge.js";
import type { CheckpointWriter } from "../checkpoint/writer.js";
import { readLatestCheckpoint } from "../checkpoint/recovery.js";
import { allowCheckpointEntries } from "../checkpoint/yaml.js";
import { ContextState } from "../state/context-state.js";
import { consoleWarnLogger, type OnceLogger } from "../../infra/log-once.js";
import { canonicalSessionKey, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import type { SessionLog } from "./session.js";
import { sessionAt } from "./cache-budget.js";
import { sweepIdleArchivesSoon } from "../archive/forget.js";
import type { ContextManagerRuntimeValue } from "./runtime.js";
import { type RecoverResult, recoverPreviousSessions } from "./recover-previous-session.js";

/** The session an engine is made for, beside the host's runtime values. */
export interface EngineSession extends Pick<SessionIdentity, "sessionFile" | "cwd"> {
  sessionId: string;
  /** compaction entries already in this session (used when the host passes none) */
  compactionsSoFar: number;
}

export interface ContextDecision {
  /** messages to send instead of the original (gauge appended), or undefined to leave them */
  messages: AgentMessage[] | undefined;
  reading: GaugeReading;
  /** always null: the auto checkpoint is written in the background (see `checkpointWrite`) */
  checkpoint: Checkpoint | null;
  /** the auto-80pct checkpoint this call started, settling when it is on disk (null on failure) */
  checkpointWrite?: Promise<Checkpoint | null>;
  /** the gauge text of this reading ("" below the gauge threshold), and its action */
  gaugeText?: string;
  gaugeAction?: GaugeAction;
}

/** Longest a captured item waits in memory before it is written (see scheduleFlush). */
export const FLUSH_DEBOUNCE_MS = 1000;

export class EngineState {
  protected state: ContextState | null = null;
  protected previous: Checkpoint | null | undefined = undefined;
  compactions: number;
  /** one line per failure kind for this session across the process's engines (Session.logFor) */
  readonly log: OnceLogger;
  protected readonly sessionLog: SessionLog;
  /** one writer per engine: what it knows of the checkpoint directory stays in memory */
  protected writer: CheckpointWriter | null = null;
  /** the auto checkpoint being written in the background, if any */
  protected pendingWrite: Promise<Checkpoint | null> | null = null;

  /** who this engine captures for: what its checkpoints record */
  readonly identity: SessionIdentity & { sessionId: string };

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
    // idle keys' archives past the retention: swept in the background, once a day per process
    if (c.archive) sweepIdleArchivesSoon(runtime.stateDir, c.archiveRetentionDays, runtime.logger);
  }

  /** The host's key as stored: well-formed, and distinct for distinct host keys (infra/session-dir.ts). */
  get sessionKey(): string {
    return this.identity.sessionKey;
  }

  protected storeOpts() {
    return { stateDir: this.runtime.stateDir, retention: this.runtime.config.retention, fs: this.runtime.fs };
  }

  protected loading: Promise<ContextState | null> | null = null;

  /** Loads state and the latest checkpoint once (concurrent events share the load); retried after a failure. */
  ensureState(): Promise<ContextState | null> {
    if (this.state) return Promise.resolve(this.state);
    this.loading ??= this.loadState().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  protected async loadState(): Promise<ContextState | null> {
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
  protected latestCheckpointAt: string | null = null;
  protected recoveryDue = true;

  /** Bundles previous sessions' state (retried until it succeeds); returns the state files it read, if any. */
  protected async recoverPrevious(latest?: Checkpoint | null): Promise<RecoverResult["stateFiles"]> {
    const r = await recoverPreviousSessions({
      latest,
      stateDir: this.runtime.stateDir,
      sessionKey: this.sessionKey,
      sessionId: this.identity.sessionId,
      config: this.runtime.config,
      fs: this.runtime.fs,
      logger: this.sessionLog.stateSink,
    });
    this.recoveryDue = r.failed > 0;
    return r.stateFiles;
  }

  /** State loaded (and a previous session's state bundled): the resume block reads after this. */
  async ready(): Promise<void> {
    await this.idle();
    await this.ensureState();
  }

  protected flushTimer: ReturnType<typeof setTimeout> | null = null;

  /** The hot path never waits for the disk: a crash loses at most FLUSH_DEBOUNCE_MS of capture. */
  scheduleFlush(state: ContextState): void {
    if (this.flushTimer || !state.dirty) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush(state);
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

  /** Writes pending state now (agent_end, session shutdown, tests). Never throws. */
  async flushNow(): Promise<void> {
    await this.idle();
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    if (this.state) await this.flush(this.state);
  }

  protected async flush(state: ContextState): Promise<void> {
    try {
      // ContextState.flush never throws; files still dirty afterwards = the write failed
      const hadChanges = state.dirty;
      await state.flush();
      if (hadChanges && !state.dirty) this.sessionLog.stateRecovered();
    } catch (e) {
      this.log.fail("state write", e);
    }
  }
}
