/**
 * The context-manager Pi extension (spec §8.3): `context` (gauge, Layer B
 * capture, auto-80pct checkpoint) and `tool_result` (Layer A capture).
 *
 * Two modes:
 * - hosted (OpenClaw): the host sets runtime values per run with
 *   setContextManagerRuntime() and delivers restore blocks itself with
 *   enqueueSystemEvent (hostInjectsRestore: true);
 * - standalone (`pi -e`, `pi install`): no host; the session key is derived
 *   from the workspace, settings come from pi's settings files, and the
 *   extension attaches the restore block to the next prompt (before_agent_start)
 *   after a compaction and on the first prompt of a new session on the same key.
 *
 * No handler keeps a ctx past its event: pi invalidates ctx objects on session
 * replacement and when print mode disposes the session during a compaction.
 */
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { type ContextManagerConfig, DEFAULT_CONTEXT_MANAGER_CONFIG, resolveContextManagerConfig } from "../config/context-manager-config.js";
import { consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";
import { describeBadKey, hostSessionKey } from "../../infra/session-key.js";
import { debugLog } from "../../infra/debug-log.js";
import { type CapturedSession, SessionCapture } from "./context-manager-capture.js";
import { loadPiContextManagerConfig } from "./context-manager-pi-settings.js";
import { registerContextCommand } from "./context-manager-command.js";
import { RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { restoreDue } from "./context-manager-restore-due.js";
import { createContextNoteTool } from "../state/note-tool.js";
import { backgroundWritesSettled } from "../engine/archive-hooks.js";
import type { HostModel } from "../cache/cache-rules.js";
import { startCheckpointCompaction } from "../engine/checkpoint-compaction.js";
import { createContextSearchTool } from "../archive/search-tool.js";
import { setContextManagerRuntime } from "./context-manager-runtime.js";
import { defaultStateDir } from "../../infra/state-dir.js";
import { createArtifactFetchTool } from "../artifacts/fetch-tool.js";
import { piRequestHost } from "./context-manager-request-host.js";
import { applyRunTools } from "./context-manager-tools.js";
import { takeToolsChanged } from "../engine/session.js";
import { sessionAt } from "../engine/cache-budget.js";
import { sessionForView, standaloneRuntime } from "./context-manager-session.js";

export { RESTORE_CUSTOM_TYPE, REPORT_CUSTOM_TYPE } from "../messages/custom-types.js";
export { engineFor, engineForSession, type EngineSessionView, sessionFor, standaloneRuntime } from "./context-manager-session.js";
export { defaultStateDir };

export interface ContextManagerExtensionOptions {
  /** used when no host set a runtime for the session manager (standalone pi) */
  standalone?: boolean;
  /** standalone: the config to use instead of pi's settings files */
  config?: ContextManagerConfig;
  /** register the agent-facing context_note tool (config `noteTool`) */
  noteTool?: boolean;
  /** large tool outputs off the prompt + the artifact_fetch tool (config `offload`, off by default: docs/artifacts.md#defaults) */
  offload?: boolean;
  /** standalone: where invalid settings are reported (default: console.warn) */
  logger?: WarnLogger;
  /** register the agent-facing context_search tool (config `searchTool` and `archive`) */
  searchTool?: boolean;
}

export function createContextManagerExtension(opts: ContextManagerExtensionOptions = {}): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    // Values read from each ctx while its event runs; never a ctx kept past its event.
    const seen = new SessionCapture();
    // restore deliveries already tried in this process, per session manager (a checkpoint that
    // is missing or rejected is not looked up again on every prompt)
    const tried = new WeakMap<object, Set<string>>();
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

    const sessionOf = async (session: CapturedSession | null) => {
      if (!session) return null;
      try {
        return await sessionForView(
          { sessionManager: session.sessionManager, cwd: session.cwd, contextWindow: () => session.contextWindow },
          opts.standalone
            ? () => {
                const config = standaloneConfig(session.cwd);
                return config ? standaloneRuntime(session.cwd, config) : undefined;
              }
            : undefined,
        );
      } catch (e) {
        debugLog("engine", e);
        return null;
      }
    };
    // the run's Session (engine/session-api.ts): every handler and tool calls it
    const get = (ctx: ExtensionContext, event: string) => sessionOf(seen.from(ctx, event));

    // Every handler is total: nothing it throws reaches the agent loop; the debug switch shows it.
    const guard =
      <E, R>(event: string, handler: (event: E, ctx: ExtensionContext) => Promise<R | undefined>) =>
      async (e: E, ctx: ExtensionContext): Promise<R | undefined> => {
        try {
          return await handler(e, ctx);
        } catch (err) {
          debugLog(`${event} handler`, err);
          return undefined;
        }
      };

    pi.on(
      "session_start",
      guard("session_start", async (_event, ctx) => {
        // capture cwd/session now; a resumed session's old tool outputs are aged from the first
        // request on (docs/artifacts.md); the state is loaded now, not by the first request or a /compact
        (await get(ctx, "session_start"))?.startRun(ctx.sessionManager.getBranch());
        return undefined;
      }),
    );

    pi.on(
      "context",
      guard("context", async (event, ctx) => {
        const session = await get(ctx, "context");
        if (!session) return undefined;
        const engine = session.engine;
        const host = piRequestHost(pi, ctx, engine.identity.cwd ?? null, () => engine.runtime.contextWindowTokens);
        const tools = sessionAt(engine.runtime.stateDir, engine.sessionKey).ourTools(engine.identity.sessionId);
        // a tool that joined at this run start rewrote the prompt: the request is cold for the aging gate
        const cache = { model: piModelOf(ctx), ...(takeToolsChanged(tools) ? { systemPromptChanged: true } : {}) };
        const out = (await session.prepareRequest({ messages: event.messages, usage: safeUsage(ctx), host, cache })).messages;
        return out !== event.messages ? { messages: out } : undefined;
      }),
    );

    pi.on(
      "tool_result",
      guard("tool_result", async (event, ctx) => {
        const captured = seen.from(ctx, "tool_result");
        const session = await sessionOf(captured);
        return session && captured ? session.toolResult(event, captured.cwd) : undefined;
      }),
    );

    // tools are registered now, before any event: standalone reads pi's settings for the
    // process's cwd here (pi runs sessions in it); events re-read them for their own cwd
    const toolConfig = opts.config ?? (opts.standalone ? standaloneConfig(process.cwd()) : null);
    if (opts.offload ?? toolConfig?.offload ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offload) {
      pi.registerTool(
        createArtifactFetchTool({
          stateDir: async (ctx) => (await get(ctx as ExtensionContext, "artifact_fetch"))?.engine.runtime.stateDir ?? null,
        }),
      );
    }

    if (opts.noteTool ?? toolConfig?.noteTool) {
      pi.registerTool(
        createContextNoteTool(async (kind, text, ctx) => {
          const session = await get(ctx, "context_note");
          return session ? session.note(kind, text) : "The context manager is not active in this session.";
        }),
      );
    }

    const searchConfig = toolConfig ?? DEFAULT_CONTEXT_MANAGER_CONFIG;
    let searchRegistered = false;
    if (opts.searchTool ?? (searchConfig.searchTool && searchConfig.archive)) {
      searchRegistered = true;
      pi.registerTool(
        createContextSearchTool(async (params, ctx) => {
          const session = await get(ctx, "context_search");
          return session ? session.search(params) : "The context manager is not active in this session.";
        }),
      );
    }

    // context_search joins the run only once the archive holds something (engine/session.ts OurToolsState):
    // decided before pi snapshots the run's tools
    if (searchRegistered) {
      pi.on(
        "before_agent_start",
        guard("before_agent_start", async (event, ctx) => {
          const engine = (await get(ctx, "before_agent_start"))?.engine;
          if (engine) await applyRunTools(pi, engine, ctx, event.prompt, piModelOf(ctx));
          return undefined;
        }),
      );
    }

    // The end of an agent run (and of a session) makes captured state durable.
    const flush = (event: string) =>
      guard(event, async (_event: unknown, ctx: ExtensionContext) => {
        await (await get(ctx, event))?.flush();
        await backgroundWritesSettled(); // a "checkpoint" compaction's span and the knowledge records, written after it returned
        return undefined;
      });
    pi.on(
      "agent_end",
      guard("agent_end", async (event, ctx) => {
        await (await get(ctx, "agent_end"))?.endTurn(Array.isArray(event.messages) ? event.messages : []);
        return undefined;
      }),
    );
    pi.on("session_shutdown", flush("session_shutdown"));

    if (opts.standalone) {
      // Without OpenClaw's safeguard, the extension observes compaction itself: in "host" mode
      // it returns undefined so pi's own summarization still runs; in "checkpoint" mode the
      // checkpoint is the compaction (issue 25: no model call).
      pi.on(
        "session_before_compact",
        guard("session_before_compact", async (event, ctx) => {
          const captured = seen.from(ctx, "session_before_compact");
          const session = await sessionOf(captured);
          if (!session || !captured || session.engine.runtime.hostInjectsRestore) return undefined;
          if (session.engine.runtime.config.compaction === "checkpoint") {
            const compaction = (await startCheckpointCompaction(session, event, captured.cwd))?.compaction;
            return compaction ? { compaction } : undefined;
          }
          await session.beforeCompaction(event, { use: "checkpoint", cwd: captured.cwd });
          return undefined;
        }),
      );

      // The restore block rides on the prompt it belongs to, decided from the session's
      // entries (see restoreDue): one per compaction and per new session, across processes.
      pi.on(
        "before_agent_start",
        guard("before_agent_start", async (_event, ctx) => {
          const captured = seen.from(ctx, "before_agent_start");
          const session = await sessionOf(captured);
          if (!session || !captured || session.engine.runtime.hostInjectsRestore) return undefined;
          const due = restoreDue(captured.sessionManager.getBranch());
          if (!due) return undefined;
          const sm = captured.sessionManager as object;
          const done = tried.get(sm) ?? new Set<string>();
          tried.set(sm, done);
          if (done.has(due.key)) return undefined;
          done.add(due.key);
          const block = await session.restoreOwed(due.kind);
          if (!block) {
            debugLog(`before_agent_start: no ${due.kind} checkpoint to restore`);
            return undefined;
          }
          return { message: { customType: RESTORE_CUSTOM_TYPE, content: block.text, display: false } };
        }),
      );
    }

    registerContextCommand(pi, { session: (ctx) => seen.from(ctx, "/context"), engine: async (ctx) => (await get(ctx, "/context"))?.engine ?? null });

    pi.on(
      "session_compact",
      guard("session_compact", async (_event, ctx) => {
        (await get(ctx, "session_compact"))?.afterCompaction();
        return undefined;
      }),
    );
  };
}

function safeUsage(ctx: ExtensionContext) {
  try {
    return ctx.getContextUsage();
  } catch (e) {
    debugLog("getContextUsage", e);
    return undefined;
  }
}

/** The model pi sends the request to, for the prompt-cache rules (pi-ai reads PI_CACHE_RETENTION for the TTL). */
function piModelOf(ctx: ExtensionContext): HostModel | undefined {
  try {
    const m = ctx.model;
    return { provider: m?.provider ?? null, api: m?.api ?? null, id: m?.id ?? null, retention: process.env.PI_CACHE_RETENTION ?? null };
  } catch {
    return undefined; // a stale ctx: the rules fall back to the config's choice
  }
}

/**
 * The seam OpenClaw core calls in buildEmbeddedExtensionFactories(): stores the
 * run's runtime values and returns the factories, or [] when disabled. An
 * invalid config is reported once and disables the manager for the run; it
 * never breaks the run.
 */
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
  // a key that is not one (null, a number, an object): the manager is off for this run, said once
  // here at configuration time rather than thrown later on the reply path (issue 28)
  if (hostSessionKey(params.sessionKey) === null) {
    try {
      (params.logger ?? consoleWarnLogger).warn(`[context-manager] disabled for this run: the session key is ${describeBadKey(params.sessionKey)}, not a string`);
    } catch {
      // a broken logger must not break the run
    }
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
  return [
    createContextManagerExtension({ noteTool: config.noteTool, offload: config.offload, searchTool: config.searchTool && config.archive, config }),
  ];
}

/** Default export for `pi -e` and the package's `pi.extensions`: standalone mode. */
export default function contextManagerPiExtension(pi: ExtensionAPI): void {
  createContextManagerExtension({ standalone: true })(pi);
}
