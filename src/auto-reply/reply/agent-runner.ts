/**
 * HOST STAND-IN for OpenClaw core (openclaw@2026.9.6) `src/auto-reply/reply/`:
 * the reply run of `agent-runner.ts`, the system-event drain of
 * `session-system-events.ts` (`drainFormattedSystemEvents`) and the
 * post-compaction injection of `agent-runner-result-complete.ts`
 * (`completeReplyAgentRun`, beside `readPostCompactionContext()`).
 *
 * Handles one inbound message for a session key: drains the key's queued
 * system events (owner-scoped queue) and prepends them as timestamped
 * `System:` lines, opens the session for this run (a NEW SessionManager every
 * run), registers the embedded extensions, runs the turn, waits for
 * auto-compaction to finish, and after ANY compaction (threshold, overflow
 * retry, manual `/compact`) enqueues the checkpoint restore block through
 * `withSystemEventOwner`. `/new` starts a new session id on the same key; its
 * first turn gets the resume block. Sessions are JSONL files here; 2026.9
 * keeps them in SQLite and can rotate the session id on compaction (the
 * restore call then passes the previous id too).
 */
import { join } from "node:path";
import type { Model } from "@mariozechner/pi-ai";
import {
  type AgentSession,
  type AgentSessionEvent,
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionFactory,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  shouldCompact,
} from "@mariozechner/pi-coding-agent";
import { buildEmbeddedExtensionFactories, type EmbeddedRunConfig } from "../../agents/pi-embedded-runner/extensions.js";
import { type Enqueue, onCompactionCompleted, onSessionStarted } from "../../openclaw-core/restore-seams.js";
import type { RestoreBlock } from "../../agents/engine/restore-block.js";
import { resolveContextManagerConfig, type ContextManagerConfig } from "../../agents/config/context-manager-config.js";
import { consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";
import { NOTE_TOOL_NAME } from "../../agents/state/note-tool.js";
import { FETCH_TOOL_NAME } from "../../agents/artifacts/preview.js";
import { SEARCH_TOOL_NAME } from "../../agents/archive/search-tool.js";
import {
  drainSystemEventEntries,
  enqueueSystemEvent,
  prependSystemEvents,
  resolveSystemEventQueueKey,
  withSystemEventOwner,
} from "../system-events.js";
import { SessionStore, type SessionStoreEntry } from "./session-store.js";

export type CompactionTrigger = "threshold" | "overflow" | "manual";

export interface AgentRunnerOptions {
  /** OpenClaw state dir: sessions under <stateDir>/agents/<agentId>/sessions, context data under <stateDir>/context */
  stateDir: string;
  workspaceDir: string;
  model: Model<any>;
  authStorage: AuthStorage;
  agentId?: string;
  cfg?: EmbeddedRunConfig;
  compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
  systemPrompt?: string;
  tools?: string[];
  /** extra factories loaded before the embedded ones (e.g. the faux usage fix) */
  extraExtensionFactories?: ExtensionFactory[];
  /** wraps every extension factory of a run, embedded ones included (the replay times handlers with it) */
  wrapExtensionFactory?: (factory: ExtensionFactory) => ExtensionFactory;
  logger?: WarnLogger;
  onEvent?: (event: RunnerEvent) => void;
}

export type RunnerEvent =
  | { type: "turn_start"; sessionKey: string; sessionId: string; prompt: string; systemEvents: string[] }
  | { type: "session_event"; sessionKey: string; event: AgentSessionEvent }
  | ({ type: "compaction"; sessionKey: string } & CompactionReport)
  | { type: "resume"; sessionKey: string; sessionId: string; restore: RestoreBlock }
  | { type: "new_session"; sessionKey: string; sessionId: string };

export interface CompactionReport {
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number | null;
  restore: RestoreBlock | null;
  /** the text that replaced the history (the compaction entry's summary) */
  summaryText: string;
  /** compaction_start to compaction_end, ms */
  compactionMs: number;
}

type DoneCompaction = { trigger: CompactionTrigger; tokensBefore: number; tokensAfter: number | null; startedAt: number; summaryText: string; compactionMs: number };

export interface TurnReport {
  sessionKey: string;
  sessionId: string;
  sessionFile: string;
  command: "prompt" | "compact" | "new";
  /** the user message as sent to the agent (System: lines included) */
  prompt: string | null;
  compactions: CompactionReport[];
  resume: RestoreBlock | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** how long settled() waits for pi's scheduled compact-and-retry to start */
const RETRY_WAIT_MS = 2_000;

export class AgentRunner {
  readonly agentId: string;
  readonly sessionsDir: string;
  readonly store: SessionStore;
  readonly contextManagerConfig: ContextManagerConfig;
  private readonly logger: WarnLogger;

  constructor(private readonly opts: AgentRunnerOptions) {
    this.agentId = opts.agentId ?? "main";
    this.sessionsDir = join(opts.stateDir, "agents", this.agentId, "sessions");
    this.store = new SessionStore(this.sessionsDir);
    this.contextManagerConfig = resolveContextManagerConfig(opts.cfg?.agents?.defaults?.contextManager ?? {});
    this.logger = opts.logger ?? consoleWarnLogger;
  }

  /** core: enqueueSystemEvent(text, withSystemEventOwner({ sessionKey }, agentId)) */
  private readonly enqueue: Enqueue = (text, o) => enqueueSystemEvent(text, withSystemEventOwner({ sessionKey: o.sessionKey }, this.agentId));

  /** One inbound message: `/new [text]`, `/compact [instructions]`, or a prompt. */
  async handleInbound(sessionKey: string, text: string): Promise<TurnReport> {
    const trimmed = text.trim();
    const command = /^\/(new|compact)(?:\s+([\s\S]*))?$/.exec(trimmed);
    if (command?.[1] === "new") {
      const entry = await this.startNewSession(sessionKey);
      const rest = command[2]?.trim();
      if (!rest) return { sessionKey, ...this.ids(entry), command: "new", prompt: null, compactions: [], resume: null };
      return this.runPrompt(sessionKey, rest);
    }
    if (command?.[1] === "compact") return this.runCompact(sessionKey, command[2]?.trim() || undefined);
    return this.runPrompt(sessionKey, text);
  }

  private ids(entry: SessionStoreEntry) {
    return { sessionId: entry.sessionId, sessionFile: entry.sessionFile };
  }

  private async startNewSession(sessionKey: string): Promise<SessionStoreEntry> {
    const sm = SessionManager.create(this.opts.workspaceDir, this.sessionsDir);
    const entry: SessionStoreEntry = {
      sessionId: sm.getSessionId(),
      sessionFile: sm.getSessionFile() ?? join(this.sessionsDir, `${sm.getSessionId()}.jsonl`),
      updatedAt: Date.now(),
      compactionCount: 0,
      resumeChecked: false,
    };
    await this.store.set(sessionKey, entry);
    this.opts.onEvent?.({ type: "new_session", sessionKey, sessionId: entry.sessionId });
    return entry;
  }

  private async currentEntry(sessionKey: string): Promise<SessionStoreEntry> {
    return (await this.store.get(sessionKey)) ?? (await this.startNewSession(sessionKey));
  }

  /** A fresh SessionManager on this session's file, as OpenClaw opens one per run. */
  private openSessionManager(entry: SessionStoreEntry): SessionManager {
    const sm = SessionManager.open(entry.sessionFile, this.sessionsDir, this.opts.workspaceDir);
    // pi writes the file only after the first assistant reply; until then keep our id.
    if (sm.getSessionId() !== entry.sessionId) sm.newSession({ id: entry.sessionId });
    return sm;
  }

  private async runPrompt(sessionKey: string, text: string): Promise<TurnReport> {
    const entry = await this.currentEntry(sessionKey);
    let resume: RestoreBlock | null = null;
    if (!entry.resumeChecked) {
      resume = await onSessionStarted({
        sessionKey,
        sessionId: entry.sessionId,
        stateDir: this.opts.stateDir,
        config: this.contextManagerConfig,
        enqueue: this.enqueue,
      });
      entry.resumeChecked = true;
      await this.store.set(sessionKey, entry);
      if (resume) this.opts.onEvent?.({ type: "resume", sessionKey, sessionId: entry.sessionId, restore: resume });
    }
    const run = await this.openRun(sessionKey, entry);
    const compactions: CompactionReport[] = [];
    let prompt: string | null = null;
    let events: string[] = [];
    let failure: { error: unknown } | null = null;
    try {
      // pi would compact before this prompt anyway (last usage above the threshold);
      // compacting first lets the restore block ride on this very prompt instead of the next.
      if (this.overThreshold(run.session)) {
        await this.compactQuietly(run, undefined);
        compactions.push(...(await this.afterCompactions(sessionKey, entry, run.take(), "threshold")));
      }
      const entries = drainSystemEventEntries(resolveSystemEventQueueKey(sessionKey, this.agentId));
      events = entries.map((e) => e.text);
      prompt = prependSystemEvents(entries, text);
      this.opts.onEvent?.({ type: "turn_start", sessionKey, sessionId: entry.sessionId, prompt, systemEvents: events });
      await run.session.prompt(prompt);
      await run.settled();
    } catch (error) {
      // the turn never reached the agent: its system events (a restore block) go back in the queue
      for (const event of events) this.enqueue(event, { sessionKey });
      failure = { error };
    } finally {
      run.dispose();
    }
    compactions.push(...(await this.afterCompactions(sessionKey, entry, run.take())));
    entry.updatedAt = Date.now();
    if (run.session.sessionFile) entry.sessionFile = run.session.sessionFile;
    await this.store.set(sessionKey, entry);
    if (failure) throw failure.error;
    return { sessionKey, ...this.ids(entry), command: "prompt", prompt, compactions, resume };
  }

  private async runCompact(sessionKey: string, instructions: string | undefined): Promise<TurnReport> {
    const entry = await this.currentEntry(sessionKey);
    const run = await this.openRun(sessionKey, entry);
    try {
      await this.compactQuietly(run, instructions);
    } finally {
      run.dispose();
    }
    const compactions = await this.afterCompactions(sessionKey, entry, run.take());
    entry.updatedAt = Date.now();
    await this.store.set(sessionKey, entry);
    return { sessionKey, ...this.ids(entry), command: "compact", prompt: null, compactions, resume: null };
  }

  private compactionSettings() {
    return {
      enabled: this.opts.compaction?.enabled ?? true,
      reserveTokens: this.opts.compaction?.reserveTokens ?? 16_384,
      keepRecentTokens: this.opts.compaction?.keepRecentTokens ?? 20_000,
    };
  }

  private overThreshold(session: AgentSession): boolean {
    const settings = this.compactionSettings();
    const usage = session.getContextUsage();
    return settings.enabled && usage?.tokens != null && shouldCompact(usage.tokens, usage.contextWindow, settings);
  }

  /** session.compact(); "nothing to compact" (e.g. right after an auto-compaction) is not a failure. */
  private async compactQuietly(run: { session: AgentSession; settled(): Promise<void> }, instructions: string | undefined) {
    try {
      await run.session.compact(instructions);
      await run.settled();
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      if (!/already compacted|nothing to compact/i.test(message)) this.logger.warn(`[agent-runner] compaction failed: ${message}`);
    }
  }

  /** The spec's addition beside core's readPostCompactionContext(): one restore block per completed compaction. */
  private async afterCompactions(
    sessionKey: string,
    entry: SessionStoreEntry,
    done: DoneCompaction[],
    triggerOverride?: CompactionTrigger,
  ): Promise<CompactionReport[]> {
    const reports: CompactionReport[] = [];
    for (const c of done) {
      if (triggerOverride) c.trigger = triggerOverride;
      entry.compactionCount += 1;
      const restore = await onCompactionCompleted({
        sessionKey,
        sessionId: entry.sessionId,
        // 2026.9: accounting.expectedSession.sessionId when compaction rotated the session
        previousSessionId: entry.sessionId,
        since: c.startedAt,
        stateDir: this.opts.stateDir,
        config: this.contextManagerConfig,
        enqueue: this.enqueue,
        logger: this.logger,
      });
      reports.push({ trigger: c.trigger, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter, restore, summaryText: c.summaryText, compactionMs: c.compactionMs });
      this.opts.onEvent?.({ type: "compaction", sessionKey, ...reports[reports.length - 1]! });
    }
    return reports;
  }

  private async openRun(sessionKey: string, entry: SessionStoreEntry) {
    const sessionManager = this.openSessionManager(entry);
    const settingsManager = SettingsManager.inMemory({
      compaction: this.compactionSettings(),
      retry: { enabled: false },
    });
    const wrap = this.opts.wrapExtensionFactory ?? ((f: ExtensionFactory) => f);
    const factories = [
      ...(this.opts.extraExtensionFactories ?? []),
      ...buildEmbeddedExtensionFactories({
        cfg: this.opts.cfg ?? {},
        sessionManager,
        provider: this.opts.model.provider,
        modelId: this.opts.model.id,
        model: this.opts.model,
        agentId: this.agentId,
        sessionId: entry.sessionId,
        sessionKey,
        runId: `run-${Date.now().toString(36)}`,
        stateDir: this.opts.stateDir,
        logger: this.logger,
        compactionReserveTokens: settingsManager.getCompactionReserveTokens(),
      }),
    ].map(wrap);
    const agentDir = join(this.opts.stateDir, "agents", this.agentId, "agent");
    const resourceLoader = new DefaultResourceLoader({
      cwd: this.opts.workspaceDir,
      agentDir,
      settingsManager,
      extensionFactories: factories,
      noExtensions: true,
      noSkills: true,
      noPromptTemplates: true,
      noThemes: true,
      noContextFiles: true,
      systemPromptOverride: () => this.opts.systemPrompt ?? "You are a coding agent working in the user's workspace.",
    });
    await resourceLoader.reload();
    const { session } = await createAgentSession({
      cwd: this.opts.workspaceDir,
      agentDir,
      model: this.opts.model,
      thinkingLevel: "off",
      tools: [
        ...(this.opts.tools ?? ["read", "write", "edit", "bash"]),
        ...(this.contextManagerConfig.noteTool ? [NOTE_TOOL_NAME] : []),
        ...(this.contextManagerConfig.enabled && this.contextManagerConfig.offload ? [FETCH_TOOL_NAME] : []),
        ...(this.contextManagerConfig.searchTool && this.contextManagerConfig.archive ? [SEARCH_TOOL_NAME] : []),
      ],
      authStorage: this.opts.authStorage,
      modelRegistry: ModelRegistry.inMemory(this.opts.authStorage),
      resourceLoader,
      sessionManager,
      settingsManager,
    });
    await session.bindExtensions({ onError: (e) => this.logger.warn(`[agent-runner] extension error: ${e.error}`) });
    return watchRun(session, sessionKey, this.opts.onEvent);
  }
}

/** Subscribes to a session's events: completed compactions, and a settled() that waits for auto-compaction. */
function watchRun(session: AgentSession, sessionKey: string, onEvent: AgentRunnerOptions["onEvent"]) {
  const compactions: DoneCompaction[] = [];
  let startedAt = Date.now();
  let startedPerf = performance.now();
  // pi retries an overflowed turn 100 ms AFTER compaction_end (setTimeout -> agent.continue());
  // disposing the session before that would drop the retry and the user's answer.
  let retryPendingSince: number | null = null;
  let runsOpen = 0;
  const unsubscribe = session.subscribe((event) => {
    onEvent?.({ type: "session_event", sessionKey, event });
    if (event.type === "agent_start" || event.type === "agent_end") retryPendingSince = null;
    // listeners hear agent_end after the extensions' agent_end handlers (the state flush) finished
    if (event.type === "agent_start") runsOpen++;
    if (event.type === "agent_end") runsOpen = Math.max(0, runsOpen - 1);
    if (event.type === "compaction_start") {
      startedAt = Date.now();
      startedPerf = performance.now();
    }
    if (event.type === "compaction_end" && event.willRetry && event.result && !event.aborted) retryPendingSince = Date.now();
    if (event.type === "compaction_end" && event.result && !event.aborted) {
      compactions.push({
        trigger: event.reason,
        tokensBefore: event.result.tokensBefore,
        tokensAfter: session.getContextUsage()?.tokens ?? null,
        startedAt,
        summaryText: event.result.summary,
        compactionMs: Math.round((performance.now() - startedPerf) * 100) / 100,
      });
    }
  });
  return {
    session,
    /** completed compactions not yet handled, oldest first */
    take: () => compactions.splice(0),
    // prompt() can resolve before auto-compaction (run after agent_end) has finished.
    async settled() {
      await new Promise((r) => setImmediate(r));
      const retryPending = () => retryPendingSince !== null && Date.now() - retryPendingSince < RETRY_WAIT_MS;
      const deadline = Date.now() + 30_000;
      const busy = () => session.isCompacting || session.isStreaming || retryPending() || runsOpen > 0;
      while (busy() && Date.now() < deadline) await sleep(5);
      // auto-compaction is checked right after the agent_end listeners: give it a tick to start
      await new Promise((r) => setImmediate(r));
      while (busy() && Date.now() < deadline) await sleep(5);
    },
    dispose() {
      unsubscribe();
      session.dispose();
    },
  };
}
