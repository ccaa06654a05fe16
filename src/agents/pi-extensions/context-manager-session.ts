/**
 * The pi shell's Session of a SessionManager: one per run (OpenClaw) or per pi CLI session,
 * made on the first event that needs it from the runtime the host set (or the standalone one).
 */
import { resolve } from "node:path";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../config/context-manager-config.js";
import { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { SessionApi } from "../engine/session-api.js";
import { consoleWarnLogger } from "../../infra/log-once.js";
import { describeBadKey, hostSessionKey } from "../../infra/session-key.js";
import { enableDebugFromConfig } from "../../infra/debug-log.js";
import { defaultStateDir } from "../../infra/state-dir.js";
import { piCompactionSet } from "./context-manager-request-host.js";
import type { ReadonlySessionManager } from "./context-manager-capture.js";
import { type ContextManagerRuntimeValue, getContextManagerRuntime, sessionOfManager, setSessionOfManager } from "./context-manager-runtime.js";

/** Runtime for a pi CLI session with no host: one session key per workspace. */
export function standaloneRuntime(cwd: string, config?: ContextManagerConfig): ContextManagerRuntimeValue {
  const cfg = config ?? resolveContextManagerConfig({});
  // pi's own reserve where its settings files set one (its default is the config key's default)
  const reserve = piCompactionSet(cwd).reserveTokens;
  return {
    ...(reserve === undefined ? {} : { hostReserveTokens: reserve }),
    sessionKey: `pi:${resolve(cwd)}`,
    contextWindowTokens: 0, // 0: take the window from the model at engine creation
    stateDir: cfg.stateDir ?? defaultStateDir(),
    config: cfg,
    agentId: "pi",
    channel: "pi",
    hostInjectsRestore: false,
  };
}

/** What engine creation needs, captured while an event runs (see context-manager-capture.ts). */
export interface EngineSessionView {
  sessionManager: Pick<ReadonlySessionManager, "getEntries" | "getSessionId" | "getSessionFile">;
  /** the workspace, when known (the engine records workspace drift against it) */
  cwd: string | null;
  /** the context window when the runtime has none (standalone) */
  contextWindow: () => number;
}

/** The Session of this session manager (one per run); null when the manager is disabled. */
export async function sessionForView(view: EngineSessionView, fallback?: () => ContextManagerRuntimeValue | undefined): Promise<SessionApi | null> {
  const sm = view.sessionManager as object;
  // hot path: the Session of this session manager already exists
  let session = sessionOfManager(sm);
  if (!session) {
    const runtime = getContextManagerRuntime(sm) ?? fallback?.();
    if (!runtime || !runtime.config.enabled) return null;
    // a runtime set with a key that is not one: no engine, one line (the constructor would throw)
    if (hostSessionKey(runtime.sessionKey) === null) {
      logBadRuntimeKey(runtime);
      return null;
    }
    enableDebugFromConfig(runtime.config.debug);
    session = Promise.resolve().then(() => {
      let compactionsSoFar = 0;
      for (const e of view.sessionManager.getEntries()) if (e.type === "compaction") compactionsSoFar++;
      const window = runtime.contextWindowTokens || view.contextWindow();
      const engine = new ContextManagerEngine(
        { ...runtime, contextWindowTokens: window },
        {
          sessionId: runtime.sessionId ?? view.sessionManager.getSessionId(),
          sessionFile: runtime.sessionFile ?? view.sessionManager.getSessionFile() ?? null,
          compactionsSoFar,
          cwd: view.cwd,
        },
      );
      return new SessionApi(engine);
    });
    setSessionOfManager(sm, session);
  }
  return session;
}

/** The engine of this session manager (the /context report, the replay's breakdown, tests). */
export async function engineForSession(view: EngineSessionView, fallback?: () => ContextManagerRuntimeValue | undefined): Promise<ContextManagerEngine | null> {
  return (await sessionForView(view, fallback))?.engine ?? null;
}

const badKeyLogged = new WeakSet<object>();
function logBadRuntimeKey(runtime: ContextManagerRuntimeValue): void {
  if (badKeyLogged.has(runtime)) return;
  badKeyLogged.add(runtime);
  try {
    (runtime.logger ?? consoleWarnLogger).warn(`[context-manager] off for this session: the session key is ${describeBadKey(runtime.sessionKey)}, not a string`);
  } catch {
    // a broken logger must not break the host
  }
}

type LiveCtx = Pick<ExtensionContext, "sessionManager" | "cwd" | "getContextUsage">;

/** sessionForView for a LIVE ctx (OpenClaw's safeguard hook calls this inside its event). */
export function sessionFor(ctx: LiveCtx, fallback?: () => ContextManagerRuntimeValue | undefined): Promise<SessionApi | null> {
  return sessionForView({ sessionManager: ctx.sessionManager, cwd: cwdOf(ctx), contextWindow: () => ctx.getContextUsage()?.contextWindow ?? 0 }, fallback);
}

/** The engine for a LIVE ctx. */
export async function engineFor(ctx: LiveCtx, fallback?: () => ContextManagerRuntimeValue | undefined): Promise<ContextManagerEngine | null> {
  return (await sessionFor(ctx, fallback))?.engine ?? null;
}

/** ctx.cwd, read while the event's ctx is live (a stale ctx throws) */
function cwdOf(ctx: Pick<ExtensionContext, "cwd">): string | null {
  try {
    return typeof ctx.cwd === "string" ? ctx.cwd : null;
  } catch {
    return null;
  }
}
