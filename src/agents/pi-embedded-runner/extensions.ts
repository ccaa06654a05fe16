/**
 * HOST STAND-IN for OpenClaw core (openclaw@2026.9.6)
 * `src/agents/embedded-agent-runner/extensions.ts` (before 2026.9:
 * `src/agents/pi-embedded-runner/extensions.ts`, the path this file keeps).
 *
 * `buildEmbeddedExtensionFactories()` returns the extension factories of one
 * embedded run: the compaction-safeguard (in "safeguard" mode) and — the one
 * import and one push this project adds — the context manager (its channel read
 * from the session key by the plugin's rule, engine/runtime.ts agentAndChannelOf). The params are
 * the real ones (attempt-session-prepare.ts and compaction-session-execution.ts
 * pass exactly these); `stateDir` and `logger` are what core gets from
 * `resolveStateDir()` and `createSubsystemLogger()`, injected here so tests run
 * in temp dirs. Core's tool-result middleware factory is not modelled.
 */
import type { Model } from "@mariozechner/pi-ai";
import type { ExtensionFactory, SessionManager } from "@mariozechner/pi-coding-agent";
import { createCompactionSafeguardExtension } from "./compaction-safeguard.js";
import { buildContextManagerExtensionFactories } from "../pi-extensions/context-manager.js";
import type { WarnLogger } from "../../infra/log-once.js";
import { agentAndChannelOf } from "../engine/runtime.js";

export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;

/** The slice of OpenClaw's config (`OpenClawConfig`) this stand-in reads. */
export interface EmbeddedRunConfig {
  agents?: {
    defaults?: {
      contextTokens?: number;
      compaction?: { mode?: "safeguard" | "default" };
      /** accepted only with the schema/type extension (docs/openclaw-integration.md §1) */
      contextManager?: unknown;
    };
  };
}

export interface BuildEmbeddedExtensionFactoriesParams {
  cfg: EmbeddedRunConfig;
  sessionManager: SessionManager;
  provider: string;
  modelId: string;
  model: Model<any> | undefined;
  /** the attempt's resolved context budget; core falls back to resolveContextWindowInfo() */
  contextTokenBudget?: number;
  agentId?: string;
  sessionId?: string;
  /** the OpenClaw session key of this run (e.g. agent:main:main); undefined for keyless runs */
  sessionKey?: string;
  runId?: string;
  /** stand-in injection: core's resolveStateDir() (OPENCLAW_STATE_DIR or ~/.openclaw) */
  stateDir: string;
  /** stand-in injection: core's createSubsystemLogger("context-manager") */
  logger?: WarnLogger;
  /** the run's pi `compaction.reserveTokens` (core: its SettingsManager's getCompactionReserveTokens()), passed on to the context manager */
  compactionReserveTokens?: number;
}

/** contextTokenBudget, else the model window capped by agents.defaults.contextTokens (resolveContextWindowInfo). */
export function resolveContextWindowTokens(
  cfg: EmbeddedRunConfig,
  model: Model<any> | undefined,
  contextTokenBudget?: number,
): number {
  if (typeof contextTokenBudget === "number" && contextTokenBudget > 0) return contextTokenBudget;
  const window = model?.contextWindow && model.contextWindow > 0 ? model.contextWindow : DEFAULT_CONTEXT_WINDOW_TOKENS;
  const cap = cfg.agents?.defaults?.contextTokens;
  return typeof cap === "number" && cap > 0 ? Math.min(window, cap) : window;
}

export function buildEmbeddedExtensionFactories(params: BuildEmbeddedExtensionFactoriesParams): ExtensionFactory[] {
  const factories: ExtensionFactory[] = [];
  if ((params.cfg.agents?.defaults?.compaction?.mode ?? "safeguard") === "safeguard") {
    factories.push(
      createCompactionSafeguardExtension({
        onSummaryError: (e) => params.logger?.warn(`[compaction-safeguard] summarization failed, fallback summary used: ${String(e)}`),
      }),
    );
  }
  // --- the lines this project adds to core (docs/openclaw-integration.md §2) ---
  if (params.sessionKey) {
    factories.push(
      ...buildContextManagerExtensionFactories({
        cfg: params.cfg.agents?.defaults?.contextManager,
        sessionManager: params.sessionManager,
        sessionKey: params.sessionKey,
        contextWindowTokens: resolveContextWindowTokens(params.cfg, params.model, params.contextTokenBudget),
        stateDir: params.stateDir,
        agentId: params.agentId ?? null,
        channel: agentAndChannelOf(params.sessionKey).channel,
        hostInjectsRestore: true,
        ...(params.compactionReserveTokens === undefined ? {} : { compactionReserveTokens: params.compactionReserveTokens }),
        logger: params.logger,
      }),
    );
  }
  return factories;
}
