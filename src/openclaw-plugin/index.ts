/**
 * OpenClaw plugin entry (openclaw ≥ 2026.9), bundled to dist/openclaw/plugin.js (docs/openclaw-integration.md
 * §6). Its config, `plugins.entries["context-manager"].config`, has the keys of `agents.defaults.contextManager`.
 */
import { type ArchiveLocation, searchForAgent } from "../agents/engine/archive-hooks.js";
import { createContextSearchTool, SEARCH_TOOL_NAME } from "../agents/archive/search-tool.js";
import { type ContextManagerConfig, resolveContextManagerConfig } from "../agents/config/context-manager-config.js";
import { defaultStateDir, hostSessionKey } from "../infra/session-dir.js";
import { createArtifactFetchTool } from "../agents/artifacts/fetch-tool.js";
import { CONTEXT_ENGINE_ID, ContextManagerContextEngine } from "./context-engine.js";
import { createCompactionProvider, noteCompactionHint } from "./compaction-provider.js";
import type { CompactParams, DelegateCompaction, PluginApiShape } from "./engine-types.js";

// OpenClaw aliases this specifier to its SDK; a variable, so this package builds without openclaw
const PLUGIN_SDK_CORE = "openclaw/plugin-sdk/core";

const delegateToRuntime: DelegateCompaction = async (params: CompactParams) => {
  const sdk = (await import(PLUGIN_SDK_CORE)) as { delegateCompactionToRuntime: DelegateCompaction };
  return sdk.delegateCompactionToRuntime(params);
};

/** What the session slots take: the state dir, and pi's reserve where OpenClaw's config sets one. */
function slotOptions(api: PluginApiShape, config: ContextManagerConfig, workspaceDir: string | null) {
  const reserve = openClawReserveTokens(api.config);
  const stateDir = config.stateDir ?? defaultStateDir();
  return { config, stateDir, logger: api.logger, workspaceDir, ...(reserve === undefined ? {} : { hostReserveTokens: reserve }) };
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
  // the agent's `context_search`, made per run for its session key (the engine's fallback without one)
  const search = configOf();
  if (api.registerTool && search.archive && search.searchTool) {
    const stateDir = search.stateDir ?? defaultStateDir();
    api.registerTool(
      (ctx: { sessionKey?: string; sessionId?: string } | undefined) => {
        const byId = typeof ctx?.sessionId === "string" && ctx.sessionId ? `openclaw:${ctx.sessionId}` : "";
        const sessionKey = hostSessionKey(ctx?.sessionKey)?.trim() || byId;
        if (!sessionKey) return null;
        const archive: ArchiveLocation = { stateDir, sessionKey, config: search, logger: api.logger };
        return createContextSearchTool((params) => searchForAgent(archive, params));
      },
      { name: SEARCH_TOOL_NAME },
    );
  }
  // the engine's config exactly: the provider shares its session slots (keyed by config)
  const engineConfig = (): ContextManagerConfig => {
    const resolved = configOf();
    return offloadTool ? resolved : { ...resolved, offload: false };
  };
  // the compaction provider; the `before_compaction` hook tells it which session a compaction is of
  const providerConfig = engineConfig();
  if (typeof api.registerCompactionProvider === "function" && providerConfig.enabled) {
    api.on?.("before_compaction", (event, ctx) => {
      try {
        noteCompactionHint(event, ctx);
      } catch {
        // a hint is optional: the provider renders from the messages alone
      }
    });
    api.registerCompactionProvider(createCompactionProvider(slotOptions(api, providerConfig, null)));
  }
  api.registerContextEngine(CONTEXT_ENGINE_ID, (ctx) => {
    return new ContextManagerContextEngine({ ...slotOptions(api, engineConfig(), ctx?.workspaceDir ?? null), delegateCompaction });
  });
}

export default {
  id: CONTEXT_ENGINE_ID,
  name: "Context manager",
  description: "LLM-free token gauge, YAML checkpoints at 80% and in compaction, restore after compaction and on resume.",
  register: (api: PluginApiShape): void => registerContextManagerPlugin(api),
};

/**
 * pi's compaction reserve as OpenClaw's config sets it (`reserveTokens`, raised to
 * `reserveTokensFloor` as OpenClaw does); undefined without one: `smartTrimReserveTokens` applies.
 */
export function openClawReserveTokens(config: unknown): number | undefined {
  const c = (config as { agents?: { defaults?: { compaction?: { reserveTokens?: unknown; reserveTokensFloor?: unknown } } } } | null | undefined)?.agents?.defaults?.compaction;
  const reserve = tokens(c?.reserveTokens);
  return reserve === undefined ? undefined : Math.max(reserve, tokens(c?.reserveTokensFloor) ?? 0);
}

const tokens = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
