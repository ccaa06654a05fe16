/**
 * OpenClaw plugin entry (openclaw ≥ 2026.9): registers the `context-manager`
 * context engine. The package root is the plugin: its manifest is the root's
 * `openclaw.plugin.json`, and package.json `openclaw.extensions` points at this entry
 * bundled (scripts/bundle-openclaw-plugin.mjs → dist/openclaw/plugin.js):
 *   openclaw plugins install <tarball or built clone>
 * which also selects it as `plugins.slots.contextEngine` (docs/openclaw-integration.md §6). The plugin's config is
 * `plugins.entries["context-manager"].config`, the same keys as
 * `agents.defaults.contextManager` (docs/configuration.md).
 */
import { type ArchiveLocation, searchForAgent } from "../agents/engine/archive-hooks.js";
import { createContextSearchTool, SEARCH_TOOL_NAME } from "../agents/archive/search-tool.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../agents/config/context-manager-config.js";
import { defaultStateDir } from "../infra/state-dir.js";
import { createArtifactFetchTool } from "../agents/artifacts/fetch-tool.js";
import { CONTEXT_ENGINE_ID, createContextManagerContextEngine, sharedSessionSlot } from "./context-engine.js";
import { createCompactionProvider } from "./compaction-provider.js";
import { noteCompactionHint } from "./provider-session.js";
import type { CompactParams, DelegateCompaction, PluginApiShape, PluginToolContextShape } from "./engine-types.js";
import { hostSessionKey } from "../infra/session-key.js";

// OpenClaw aliases this specifier to its own SDK for the plugins it loads; kept in a
// variable so this package builds without the openclaw package installed.
const PLUGIN_SDK_CORE = "openclaw/plugin-sdk/core";

const delegateToRuntime: DelegateCompaction = async (params: CompactParams) => {
  const sdk = (await import(PLUGIN_SDK_CORE)) as { delegateCompactionToRuntime: DelegateCompaction };
  return sdk.delegateCompactionToRuntime(params);
};

/**
 * The agent's `context_search` over the archive the engine's compact() writes, through
 * OpenClaw's plugin tool API: the factory gets the run's session key (the engine's key:
 * the same fallback for a run without one).
 */
function registerSearchTool(api: PluginApiShape, config: ContextManagerConfig): void {
  if (!api.registerTool || !config.archive || !config.searchTool) return;
  const stateDir = config.stateDir ?? defaultStateDir();
  api.registerTool(
    (ctx: PluginToolContextShape | undefined) => {
      const sessionKey = hostSessionKey(ctx?.sessionKey)?.trim() || (typeof ctx?.sessionId === "string" && ctx.sessionId ? `openclaw:${ctx.sessionId}` : "");
      if (!sessionKey) return null;
      const archive: ArchiveLocation = { stateDir, sessionKey, config, logger: api.logger };
      return createContextSearchTool((params) => searchForAgent(archive, params));
    },
    { name: SEARCH_TOOL_NAME },
  );
}

/**
 * The compaction provider (compaction-provider.ts), selected with
 * `agents.defaults.compaction.provider: "context-manager"`, with any context engine. The
 * `before_compaction` hook tells it which session a compaction is of (provider-session.ts).
 */
function registerProvider(api: PluginApiShape, config: ContextManagerConfig, workspaceDir: string | null): void {
  if (typeof api.registerCompactionProvider !== "function" || !config.enabled) return;
  const opts = { config, stateDir: config.stateDir ?? defaultStateDir(), logger: api.logger, workspaceDir, ...hostReserve(api) };
  if (typeof api.on === "function") {
    api.on("before_compaction", (event, ctx) => {
      try {
        noteCompactionHint(event, ctx);
      } catch {
        // a hint is optional: the provider renders from the messages alone
      }
    });
  }
  api.registerCompactionProvider(createCompactionProvider({ ...opts, slotFor: (s) => sharedSessionSlot(opts, s.sessionId, s.sessionKey) }));
}

/** pi's reserve where OpenClaw's config sets one, for the session slots' runtime. */
function hostReserve(api: PluginApiShape): { hostReserveTokens?: number } {
  const reserve = openClawReserveTokens(api.config);
  return reserve === undefined ? {} : { hostReserveTokens: reserve };
}

export function registerContextManagerPlugin(api: PluginApiShape, delegateCompaction: DelegateCompaction = delegateToRuntime): void {
  const configOf = () => {
    try {
      return resolveContextManagerConfig(api.pluginConfig ?? {});
    } catch (e) {
      // an invalid config falls back to the defaults (the manifest schema already rejects most)
      api.logger?.warn(`[context-manager] invalid plugin config, using defaults: ${(e as Error).message}`);
      return resolveContextManagerConfig({});
    }
  };
  // offload needs the fetch tool: without registerTool the handles could not be read back, so results stay whole
  const offloadTool = configOf().offload && typeof api.registerTool === "function";
  if (offloadTool) {
    const stateDir = configOf().stateDir ?? defaultStateDir();
    api.registerTool!(createArtifactFetchTool({ stateDir: () => stateDir }));
  }
  registerSearchTool(api, configOf());
  // the engine's config exactly: the provider shares its session slots (keyed by config)
  const engineConfig = (): ContextManagerConfig => {
    const resolved = configOf();
    return offloadTool ? resolved : { ...resolved, offload: false };
  };
  registerProvider(api, engineConfig(), null);
  api.registerContextEngine(CONTEXT_ENGINE_ID, (ctx) => {
    const config = engineConfig();
    return createContextManagerContextEngine({
      config,
      stateDir: config.stateDir ?? defaultStateDir(),
      delegateCompaction,
      logger: api.logger,
      workspaceDir: ctx?.workspaceDir ?? null,
      ...hostReserve(api),
    });
  });
}

export default {
  id: CONTEXT_ENGINE_ID,
  name: "Context manager",
  description: "LLM-free token gauge, YAML checkpoints at 80% and in compaction, restore after compaction and on resume.",
  register(api: PluginApiShape): void {
    registerContextManagerPlugin(api);
  },
};

/**
 * pi's compaction reserve as OpenClaw's config sets it, for smart trim and the cold-moment trim
 * (engine/runtime.ts reserveTokensOf): `agents.defaults.compaction.reserveTokens`, raised to
 * `reserveTokensFloor` when that is set too (OpenClaw raises the reserve it gives pi to the
 * floor). Undefined when the config sets no reserve: OpenClaw's default floor and its cap by the
 * model's window are not modelled here, so the plugin's `smartTrimReserveTokens` applies.
 */
export function openClawReserveTokens(config: unknown): number | undefined {
  const c = (config as { agents?: { defaults?: { compaction?: { reserveTokens?: unknown; reserveTokensFloor?: unknown } } } } | null | undefined)?.agents?.defaults?.compaction;
  const reserve = tokens(c?.reserveTokens);
  if (reserve === undefined) return undefined;
  const floor = tokens(c?.reserveTokensFloor);
  return floor === undefined ? reserve : Math.max(reserve, floor);
}

function tokens(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}
