/**
 * The context-manager pi extension (spec §8.3): each pi event a call into the run's Session API.
 * Hosted (OpenClaw): the host sets the runtime and delivers restores; standalone (`pi -e`): a key per
 * workspace, pi's settings files, the restore on the next prompt. No handler keeps a ctx (SessionCapture).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { buildSessionContext, type SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import type { Checkpoint } from "../checkpoint/schema.js";
import { type ContextManagerConfig, DEFAULT_CONTEXT_MANAGER_CONFIG, resolveContextManagerConfig } from "../config/context-manager-config.js";
import { consoleWarnLogger, type WarnLogger, warnSafely } from "../../infra/log-once.js";
import { defaultStateDir, describeBadKey, hostSessionKey } from "../../infra/session-dir.js";
import { debugLog } from "../../infra/debug-log.js";
import { RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { createContextNoteTool } from "../state/note-tool.js";
import { backgroundWritesSettled } from "../engine/archive-hooks.js";
import { compactionFromCheckpoint, startCheckpointCompaction } from "../engine/compaction.js";
import { type CheckpointCompaction, type PiCompaction } from "../engine/compaction.js";
import { createContextSearchTool, SEARCH_TOOL_NAME } from "../archive/search-tool.js";
import { createArtifactFetchTool } from "../artifacts/fetch-tool.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import type { HostModel } from "../cache/cache-rules.js";
import { estimateContextTokens } from "../gauge/context-gauge.js";
import { livedTime } from "../../infra/process-services.js";
import { sessionAt } from "../engine/cache-budget.js";
import { type CapturedSession, loadPiContextManagerConfig, type LiveCtx } from "./context-manager-session.js";
import { piModelOf, piRequestHost, registerContextCommand, restoreDue, safeUsage } from "./context-manager-session.js";
import { SessionCapture, sessionFor, sessionForView, setContextManagerRuntime } from "./context-manager-session.js";
import { standaloneRuntime } from "./context-manager-session.js";

export { RESTORE_CUSTOM_TYPE, REPORT_CUSTOM_TYPE } from "../messages/custom-types.js";
export { type EngineSessionView, sessionFor, sessionForView, standaloneRuntime } from "./context-manager-session.js";
export { defaultStateDir };

export interface ContextManagerExtensionOptions {
  /** used when no host set a runtime for the session manager (standalone pi) */
  standalone?: boolean;
  /** standalone: the config to use instead of pi's settings files */
  config?: ContextManagerConfig;
  /** register the agent-facing context_note tool (config `noteTool`) */
  noteTool?: boolean;
  /** large tool outputs off the prompt + the artifact_fetch tool (config `offload`) */
  offload?: boolean;
  /** standalone: where invalid settings are reported (default: console.warn) */
  logger?: WarnLogger;
  /** register the agent-facing context_search tool (config `searchTool` and `archive`) */
  searchTool?: boolean;
}

export function createContextManagerExtension(opts: ContextManagerExtensionOptions = {}): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    const seen = new SessionCapture();
    let settings: { cwd: string; config: ContextManagerConfig | null } | null = null;

    const standaloneConfig = (cwd: string): ContextManagerConfig | null => {
      if (opts.config) return opts.config;
      if (settings?.cwd !== cwd) {
        try {
          settings = { cwd, config: loadPiContextManagerConfig(cwd) };
        } catch (e) {
          // the user must fix the file: say so once, and stay out of the way until then
          (opts.logger ?? consoleWarnLogger).warn(`[context-manager] disabled: ${(e as Error).message}`);
          settings = { cwd, config: null };
        }
      }
      return settings.config;
    };
    const standaloneRuntimeOf = (cwd: string) => {
      const config = standaloneConfig(cwd);
      return config ? standaloneRuntime(cwd, config) : undefined;
    };

    const sessionOf = async (captured: CapturedSession | null) => {
      if (!captured) return null;
      const { sessionManager, cwd, contextWindow } = captured;
      const fallback = opts.standalone ? () => standaloneRuntimeOf(cwd) : undefined;
      return sessionForView({ sessionManager, cwd, contextWindow: () => contextWindow }, fallback).catch((e) => {
        debugLog("engine", e);
        return null;
      });
    };
    const get = (ctx: ExtensionContext, event: string) => sessionOf(seen.from(ctx, event));
    /** the Session and the captured ctx of an event; null without either */
    const both = async (ctx: ExtensionContext, event: string) => {
      const captured = seen.from(ctx, event);
      const session = await sessionOf(captured);
      return session && captured ? { session, cwd: captured.cwd, sm: captured.sessionManager } : null;
    };

    // Every handler is total: nothing it throws reaches the agent loop; the debug switch shows it.
    const on = ((event: string, handler: (e: unknown, ctx: ExtensionContext) => Promise<unknown>) => {
      const guarded = async (e: unknown, ctx: ExtensionContext) =>
        handler(e, ctx).catch((err) => debugLog(`${event} handler`, err));
      pi.on(event as "context", guarded as never);
    }) as ExtensionAPI["on"];
    const off = "The context manager is not active in this session.";

    on("session_start", async (_event, ctx) => {
      (await get(ctx, "session_start"))?.startRun(ctx.sessionManager.getBranch());
    });
    on("context", async (event, ctx) => {
      const session = await get(ctx, "context");
      if (!session) return undefined;
      const engine = session.engine;
      const host = piRequestHost(pi, ctx, engine.identity.cwd ?? null, () => engine.runtime.contextWindowTokens);
      const tools = sessionAt(engine.runtime.stateDir, engine.sessionKey).ourTools(engine.identity.sessionId);
      // a tool that joined at this run start rewrote the prompt: the request is cold for the aging gate
      const cache = { model: piModelOf(ctx), ...(tools.takeToolsChanged() ? { systemPromptChanged: true } : {}) };
      const out = (await session.prepareRequest({ messages: event.messages, usage: safeUsage(ctx), host, cache })).messages;
      return out !== event.messages ? { messages: out } : undefined;
    });
    on("tool_result", async (event, ctx) => {
      const got = await both(ctx, "tool_result");
      return got ? got.session.toolResult(event, got.cwd) : undefined;
    });

    // tools are registered before any event: standalone reads pi's settings for the process's cwd
    const tools = opts.config ?? (opts.standalone ? standaloneConfig(process.cwd()) : null) ?? DEFAULT_CONTEXT_MANAGER_CONFIG;
    if (opts.offload ?? tools.offload) {
      const stateDir = async (ctx: unknown) =>
        (await get(ctx as ExtensionContext, "artifact_fetch"))?.engine.runtime.stateDir ?? null;
      pi.registerTool(createArtifactFetchTool({ stateDir }));
    }
    if (opts.noteTool ?? tools.noteTool) {
      pi.registerTool(
        createContextNoteTool(async (kind, text, ctx) => (await get(ctx, "context_note"))?.note(kind, text) ?? off),
      );
    }
    if (opts.searchTool ?? (tools.searchTool && tools.archive)) {
      pi.registerTool(
        createContextSearchTool(async (params, ctx) => (await get(ctx, "context_search"))?.search(params) ?? off),
      );
      // context_search joins the run once the archive holds something, before pi snapshots the tools
      on("before_agent_start", async (event, ctx) => {
        const session = await get(ctx, "before_agent_start");
        if (session) await applyRunTools(pi, session, ctx, event.prompt);
      });
    }

    on("agent_end", async (event, ctx) => {
      await (await get(ctx, "agent_end"))?.endTurn(Array.isArray(event.messages) ? event.messages : []);
    });
    on("session_shutdown", async (_event, ctx) => {
      await (await get(ctx, "session_shutdown"))?.flushNow();
      await backgroundWritesSettled(); // a "checkpoint" compaction's span and knowledge records
    });

    if (opts.standalone) {
      // without OpenClaw's safeguard: "host" mode lets pi summarize; in "checkpoint" the checkpoint is the compaction
      on("session_before_compact", async (event, ctx) => {
        const got = await both(ctx, "session_before_compact");
        if (!got || got.session.engine.runtime.hostInjectsRestore) return undefined;
        const { compaction } = await compactionSeam(got.session, event, got.cwd, performance.now());
        return compaction ? { compaction } : undefined;
      });

      // The restore block rides on the prompt it belongs to: one per compaction and new session (restoreDue).
      on("before_agent_start", async (_event, ctx) => {
        const got = await both(ctx, "before_agent_start");
        if (!got || got.session.engine.runtime.hostInjectsRestore) return undefined;
        const due = restoreDue(got.sm.getBranch());
        if (!due || !got.session.restores.once(due.key)) return undefined;
        const block = await got.session.restores.block(got.session.identity.sessionId, due.kind);
        if (!block) debugLog(`before_agent_start: no ${due.kind} checkpoint to restore`);
        return block ? { message: { customType: RESTORE_CUSTOM_TYPE, content: block, display: false } } : undefined;
      });
    }

    registerContextCommand(pi, { session: (ctx) => seen.from(ctx, "/context"), api: (ctx) => get(ctx, "/context") });

    on("session_compact", async (_event, ctx) => (await get(ctx, "session_compact"))?.afterCompaction());
  };
}

/** OpenClaw core's seam (buildEmbeddedExtensionFactories): the run's runtime set; [] when off or invalid. */
export function buildContextManagerExtensionFactories(params: {
  cfg: unknown;
  sessionManager: object;
  sessionKey: string;
  contextWindowTokens: number;
  stateDir: string;
  agentId?: string | null;
  channel?: string | null;
  compactionCount?: number;
  hostInjectsRestore?: boolean;
  /** pi's `compaction.reserveTokens` for the run, as the host set it (its SettingsManager) */
  compactionReserveTokens?: number;
  logger?: WarnLogger;
}): ExtensionFactory[] {
  let config: ContextManagerConfig;
  try {
    config = resolveContextManagerConfig(params.cfg ?? {});
  } catch (e) {
    params.logger?.warn(`[context-manager] disabled: ${(e as Error).message}`);
    return [];
  }
  if (!config.enabled) return [];
  // a key that is not one: off for this run, said here rather than thrown on the reply path
  if (hostSessionKey(params.sessionKey) === null) {
    const bad = describeBadKey(params.sessionKey);
    warnSafely(params.logger, `[context-manager] disabled for this run: the session key is ${bad}, not a string`);
    return [];
  }
  setContextManagerRuntime(params.sessionManager, {
    sessionKey: params.sessionKey,
    contextWindowTokens: params.contextWindowTokens,
    stateDir: config.stateDir ?? params.stateDir,
    config,
    agentId: params.agentId ?? null,
    channel: params.channel ?? null,
    compactionCount: params.compactionCount,
    hostInjectsRestore: params.hostInjectsRestore ?? true,
    ...(params.compactionReserveTokens === undefined ? {} : { hostReserveTokens: params.compactionReserveTokens }),
    logger: params.logger,
  });
  return [createContextManagerExtension({ config })]; // its tools as the config sets them
}

/** Default export for `pi -e` and the package's `pi.extensions`: standalone mode. */
export default function contextManagerPiExtension(pi: ExtensionAPI): void {
  createContextManagerExtension({ standalone: true })(pi);
}

/** The run start: does context_search join (engine/session.ts OurToolsState); set pi's tools if they differ. */
async function applyRunTools(pi: ExtensionAPI, session: ContextManagerEngine, ctx: ExtensionContext, prompt = ""): Promise<void> {
  const model = piModelOf(ctx);
  const compacted = () => ctx.sessionManager.getBranch().some((e) => e.type === "compaction");
  const joined = await session.searchJoined(() => runStartView(ctx, prompt, model), compacted);
  const active = pi.getActiveTools();
  if (active.includes(SEARCH_TOOL_NAME) === joined) return;
  pi.setActiveTools(joined ? [...active, SEARCH_TOOL_NAME] : active.filter((n) => n !== SEARCH_TOOL_NAME));
}

/** The run's first request as the run start sees it: its history, pi's reading plus the prompt, and now. */
function runStartView(ctx: ExtensionContext, prompt: string, model: HostModel | undefined) {
  const messages = buildSessionContext(ctx.sessionManager.getBranch()).messages;
  const promptTokens = estimateContextTokens([{ role: "user", content: prompt, timestamp: 0 } as AgentMessage]);
  const usage = ctx.getContextUsage()?.tokens;
  const tokens = (typeof usage === "number" ? usage : estimateContextTokens(messages)) + promptTokens;
  return { messages, tokens, at: livedTime(Date.now()), ...(model ? { model } : {}) };
}

/** `use` on the run's Session for the core's compaction seams (spec §8.1); `none` when off or on any throw. */
async function withSession<T>(ctx: LiveCtx, none: T, use: (s: ContextManagerEngine) => Promise<T>): Promise<T> {
  try {
    const session = await sessionFor(ctx);
    return session ? await use(session) : none;
  } catch {
    return none;
  }
}

export function writeCompactionCheckpoint(event: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<Checkpoint | null> {
  const opts = { use: "checkpoint", cwd: ctx.cwd } as const;
  return withSession(ctx, null, async (session) => (await session.beforeCompaction(event, opts)).checkpoint);
}

/** What the compaction seam hands the host's safeguard. */
export interface CompactionSeam {
  /** the compaction checkpoint just written, or null */
  checkpoint: Checkpoint | null;
  /** "checkpoint" mode: the compaction to return as is (no model call); null in "host" mode or without a checkpoint */
  compaction: CheckpointCompaction | null;
  /** "host" mode: how long the host's summary may take before `fallback()` replaces it; null when the manager is off */
  deadlineMs: number | null;
  /** the checkpoint compaction that takes the place of a failed or late host summary; null without a checkpoint */
  fallback(): CheckpointCompaction | null;
}

const NO_SEAM: CompactionSeam = { checkpoint: null, compaction: null, deadlineMs: null, fallback: () => null };

/** The checkpoint and the span's archive; then the compaction ("checkpoint") or a deadline and fallback ("host"). */
export function compactWithCheckpoint(event: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<CompactionSeam> {
  const startedAt = performance.now();
  return withSession(ctx, NO_SEAM, (session) => compactionSeam(session, event, ctx.cwd, startedAt));
}

/** compactWithCheckpoint's seam; standalone pi returns its compaction, "host" mode lets pi summarize. */
async function compactionSeam(session: ContextManagerEngine, event: PiCompaction, cwd: string, startedAt: number) {
  const { compaction: mode, compactionDeadlineMs: deadlineMs } = session.engine.runtime.config;
  if (mode === "checkpoint") {
    // the compaction returns before its checkpoint is durable (engine/compaction.ts)
    const started = await startCheckpointCompaction(session, event, cwd);
    const compaction = started?.compaction ?? null;
    if (started && compaction) return { checkpoint: started.checkpoint, compaction, deadlineMs, fallback: () => compaction };
    // no checkpoint or an empty render: the host's summary runs, as in "host" mode after it
    return { checkpoint: started ? await started.durable : null, compaction: null, deadlineMs, fallback: () => null };
  }
  const { checkpoint } = await session.beforeCompaction(event, { use: "checkpoint", cwd });
  const fallback = () => (checkpoint ? compactionFromCheckpoint(session, checkpoint, event, startedAt) : null);
  return { checkpoint, compaction: null, deadlineMs, fallback };
}

export interface ServerCompactionParams {
  sessionManager: ExtensionContext["sessionManager"];
  /** the run's working directory (core: effectiveCwd) */
  cwd: string;
  /** input tokens the endpoint compacted (core: the compacted usage's input_tokens) */
  tokensBefore: number;
}

/**
 * The checkpoint of OpenClaw's server-side compaction (`/responses/compact`), which emits no
 * `session_before_compact`: core calls this once it committed (a finished run: no split turn).
 */
export function writeServerCompactionCheckpoint(params: ServerCompactionParams): Promise<Checkpoint | null> {
  const ctx = { sessionManager: params.sessionManager, cwd: params.cwd, getContextUsage: () => undefined };
  return withSession(ctx, null, async (session) => {
    const tokensBefore = Number.isFinite(params.tokensBefore) && params.tokensBefore > 0 ? Math.floor(params.tokensBefore) : 0;
    const event = { branchEntries: params.sessionManager.getBranch(), preparation: { tokensBefore } };
    // no span reaches this route: nothing is archived
    return (await session.beforeCompaction(event, { use: "checkpoint", cwd: params.cwd, span: null })).checkpoint;
  });
}
