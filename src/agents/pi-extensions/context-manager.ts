/**
 * The context-manager Pi extension (spec §8.3): `context` (gauge, Layer B
 * capture, auto-80pct checkpoint) and `tool_result` (Layer A capture).
 *
 * Two modes:
 * - hosted (OpenClaw): the host sets runtime values per run with
 *   setContextManagerRuntime() and delivers restore blocks itself with
 *   enqueueSystemEvent (hostInjectsRestore: true);
 * - standalone (`pi -e`, `pi install`): no host; the session key is derived
 *   from the workspace, and the extension delivers the restore block with
 *   pi.sendMessage(…, { deliverAs: "nextTurn" }) after a compaction and on
 *   the first turn of a new session on the same key.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { readCheckpointForInjection, type RestoreKind } from "../context-checkpoint-restore.js";
import { type ContextManagerConfig, DEFAULT_CONTEXT_MANAGER_CONFIG, resolveContextManagerConfig } from "../context-manager-config.js";
import type { WarnLogger } from "../log-once.js";
import { ContextManagerEngine } from "./context-manager-engine.js";
import { createContextNoteTool } from "../context-note-tool.js";
import {
  type ContextManagerRuntimeValue,
  getContextManagerRuntime,
  setContextManagerRuntime,
} from "./context-manager-runtime.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { offloadPatch, registerArtifactFetchTool } from "../artifacts/extension-hooks.js";

export const RESTORE_CUSTOM_TYPE = "context-restore";

type Engines = WeakMap<object, Promise<ContextManagerEngine>>;

/** one engine per SessionManager, shared by every copy of this module */
const engines = (): Engines => globalSingleton("openclaw.contextManager.engines", () => new WeakMap());

/** OpenClaw's default state dir: OPENCLAW_STATE_DIR, else ~/.openclaw. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.OPENCLAW_STATE_DIR?.trim() ? resolve(env.OPENCLAW_STATE_DIR) : join(homedir(), ".openclaw");
}

/** Runtime for a pi CLI session with no host: one session key per workspace. */
export function standaloneRuntime(cwd: string, config?: ContextManagerConfig): ContextManagerRuntimeValue {
  const cfg = config ?? resolveContextManagerConfig({});
  return {
    sessionKey: `pi:${resolve(cwd)}`,
    contextWindowTokens: 0, // 0: take the window from ctx.getContextUsage()
    stateDir: cfg.stateDir ?? defaultStateDir(),
    config: cfg,
    agentId: "pi",
    channel: "pi",
    hostInjectsRestore: false,
  };
}

/** The engine of this session manager (one per run); null when the manager is disabled. */
export async function engineFor(
  ctx: Pick<ExtensionContext, "sessionManager" | "cwd" | "getContextUsage">,
  fallback?: () => ContextManagerRuntimeValue | undefined,
): Promise<ContextManagerEngine | null> {
  const sm = ctx.sessionManager as object;
  // hot path: the engine of this session manager already exists
  let engine = engines().get(sm);
  if (!engine) {
    const runtime = getContextManagerRuntime(sm) ?? fallback?.();
    if (!runtime || !runtime.config.enabled) return null;
    engine = Promise.resolve().then(() => {
      const entries = ctx.sessionManager.getEntries();
      let compactionsSoFar = 0;
      for (const e of entries) if (e.type === "compaction") compactionsSoFar++;
      const window = runtime.contextWindowTokens || ctx.getContextUsage()?.contextWindow || 0;
      return new ContextManagerEngine(
        { ...runtime, contextWindowTokens: window },
        {
          sessionId: runtime.sessionId ?? ctx.sessionManager.getSessionId(),
          sessionFile: runtime.sessionFile ?? ctx.sessionManager.getSessionFile() ?? null,
          compactionsSoFar,
          cwd: cwdOf(ctx),
        },
        runtime.fs,
      );
    });
    engines().set(sm, engine);
  }
  return engine;
}

/** ctx.cwd, read while the event's ctx is live (a stale ctx throws) */
function cwdOf(ctx: Pick<ExtensionContext, "cwd">): string | null {
  try {
    return typeof ctx.cwd === "string" ? ctx.cwd : null;
  } catch {
    return null;
  }
}

export interface ContextManagerExtensionOptions {
  /** used when no host set a runtime for the session manager (standalone pi) */
  standalone?: boolean;
  config?: ContextManagerConfig;
  /** register the agent-facing context_note tool (config `noteTool`) */
  noteTool?: boolean;
  /** large tool outputs off the prompt + the artifact_fetch tool (config `offload`, default on) */
  offload?: boolean;
}

export function createContextManagerExtension(opts: ContextManagerExtensionOptions = {}): ExtensionFactory {
  return (pi: ExtensionAPI) => {
    // Every handler is total: even touching a stale ctx (pi invalidates it when a
    // print-mode run ends while auto-compaction is still finishing) must not
    // surface as an extension error in the agent loop.
    const get = async (ctx: ExtensionContext) => {
      try {
        return await engineFor(ctx, opts.standalone ? () => standaloneRuntime(ctx.cwd, opts.config) : undefined);
      } catch {
        return null;
      }
    };
    const guard =
      <E, R>(handler: (event: E, ctx: ExtensionContext) => Promise<R | undefined>) =>
      async (event: E, ctx: ExtensionContext): Promise<R | undefined> => {
        try {
          return await handler(event, ctx);
        } catch {
          return undefined;
        }
      };

    pi.on(
      "context",
      guard(async (event, ctx) => {
        const engine = await get(ctx);
        if (!engine) return undefined;
        const decision = await engine.onContext(event.messages, safeUsage(ctx));
        return decision.messages ? { messages: decision.messages } : undefined;
      }),
    );

    pi.on(
      "tool_result",
      guard(async (event, ctx) => {
        const engine = await get(ctx);
        if (engine) await engine.onToolResult(event, ctx.cwd);
        return offloadPatch(event, engine); // docs/artifacts.md
      }),
    );

    if (opts.offload ?? opts.config?.offload ?? DEFAULT_CONTEXT_MANAGER_CONFIG.offload) registerArtifactFetchTool(pi, get, opts.config?.fetchMaxChars);

    if (opts.noteTool ?? opts.config?.noteTool) {
      pi.registerTool(
        createContextNoteTool(async (kind, text, ctx) => {
          const engine = await get(ctx);
          return engine ? engine.recordNote(kind, text) : "The context manager is not active in this session.";
        }),
      );
    }

    // The end of an agent run (and of a session) makes captured state durable.
    const flush = guard(async (_event: unknown, ctx: ExtensionContext) => {
      const engine = await get(ctx);
      await engine?.flushNow();
      return undefined;
    });
    pi.on("agent_end", flush);
    pi.on("session_shutdown", flush);

    if (opts.standalone) {
      // Without OpenClaw's safeguard, the extension observes compaction itself and
      // returns undefined so pi's own summarization still runs.
      pi.on(
        "session_before_compact",
        guard(async (event, ctx) => {
          const engine = await get(ctx);
          if (engine && !engine.runtime.hostInjectsRestore) await engine.onBeforeCompact(event, ctx.cwd);
          return undefined;
        }),
      );
    }

    pi.on(
      "session_compact",
      guard(async (_event, ctx) => {
        const engine = await get(ctx);
        if (!engine) return undefined;
        engine.onCompacted();
        if (!engine.runtime.hostInjectsRestore) await deliverStandalone(pi, engine, "post-compaction");
        return undefined;
      }),
    );

    pi.on(
      "session_start",
      guard(async (event, ctx) => {
        const engine = await get(ctx);
        if (!engine || engine.runtime.hostInjectsRestore) return undefined;
        if (event.reason === "startup" || event.reason === "new") {
          // a resume only for a brand-new session (no messages yet) on a key with an earlier checkpoint
          if (ctx.sessionManager.getEntries().some((e) => e.type === "message")) return undefined;
          await deliverStandalone(pi, engine, "resume");
        }
        return undefined;
      }),
    );
  };
}

function safeUsage(ctx: ExtensionContext) {
  try {
    return ctx.getContextUsage();
  } catch {
    return undefined;
  }
}

async function deliverStandalone(pi: ExtensionAPI, engine: ContextManagerEngine, kind: RestoreKind): Promise<void> {
  const sessionId = engine.identity.sessionId;
  const block = await readCheckpointForInjection(engine.sessionKey, {
    stateDir: engine.runtime.stateDir,
    config: engine.runtime.config,
    kind,
    accept: (cp) => (kind === "resume" ? cp.meta.session_id !== sessionId : cp.meta.session_id === sessionId && cp.meta.trigger === "compaction"),
  });
  if (!block) return;
  try {
    pi.sendMessage({ customType: RESTORE_CUSTOM_TYPE, content: block.text, display: false }, { deliverAs: "nextTurn" });
  } catch {
    // the agent continues without the block
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
  setContextManagerRuntime(params.sessionManager, {
    sessionKey: params.sessionKey,
    contextWindowTokens: params.contextWindowTokens,
    stateDir: config.stateDir ?? params.stateDir,
    config,
    agentId: params.agentId ?? null,
    channel: params.channel ?? null,
    compactionCount: params.compactionCount,
    hostInjectsRestore: params.hostInjectsRestore ?? true,
    logger: params.logger,
  });
  return [createContextManagerExtension({ noteTool: config.noteTool, offload: config.offload, config })];
}

/** Default export for `pi -e` and the package's `pi.extensions`: standalone mode. */
export default function contextManagerPiExtension(pi: ExtensionAPI): void {
  createContextManagerExtension({ standalone: true })(pi);
}
