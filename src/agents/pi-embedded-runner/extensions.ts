/**
 * HOST STAND-IN for OpenClaw core `src/agents/pi-embedded-runner/extensions.ts`.
 *
 * `buildEmbeddedExtensionFactories()` returns the extension factories of one
 * embedded run: the compaction-safeguard (as core does in "safeguard" mode) and
 * — the one import and one push the spec adds — the context manager.
 */
import type { Model } from "@mariozechner/pi-ai";
import type { ExtensionFactory, SessionManager } from "@mariozechner/pi-coding-agent";
import { createCompactionSafeguardExtension } from "../pi-extensions/compaction-safeguard.js";
import { buildContextManagerExtensionFactories } from "../pi-extensions/context-manager.js";
import type { WarnLogger } from "../log-once.js";

export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;

/** The slice of OpenClaw's config this stand-in reads. */
export interface EmbeddedRunConfig {
  agents?: {
    defaults?: {
      contextTokens?: number;
      compaction?: { mode?: "safeguard" | "default" };
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
  /** the OpenClaw session key of this run (routing identity, e.g. agent:main:main) */
  sessionKey: string;
  stateDir: string;
  agentId: string;
  channel?: string | null;
  compactionCount?: number;
  logger?: WarnLogger;
}

/** Model window, capped by agents.defaults.contextTokens (OpenClaw's resolveContextWindowTokens). */
export function resolveContextWindowTokens(cfg: EmbeddedRunConfig, model: Model<any> | undefined): number {
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
  // --- the lines the spec adds to core (spec §8.3) ---
  factories.push(
    ...buildContextManagerExtensionFactories({
      cfg: params.cfg.agents?.defaults?.contextManager,
      sessionManager: params.sessionManager,
      sessionKey: params.sessionKey,
      contextWindowTokens: resolveContextWindowTokens(params.cfg, params.model),
      stateDir: params.stateDir,
      agentId: params.agentId,
      channel: params.channel ?? null,
      compactionCount: params.compactionCount,
      hostInjectsRestore: true,
      logger: params.logger,
    }),
  );
  return factories;
}
