/**
 * What the shell reads of pi for a request besides the messages (a stale ctx reads as unknown): usage,
 * model, and for the breakdown the system prompt, the active tools and where pi compacts (lazily).
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { RequestHost } from "../engine/request-log.js";
import { piCompactionSet } from "./context-manager-pi-settings.js";
import { debugLog } from "../../infra/debug-log.js";
import type { HostModel } from "../cache/cache-rules.js";

/** pi's default `compaction.reserveTokens`. */
const PI_DEFAULT_RESERVE_TOKENS = 16_384;

export function piRequestHost(pi: ExtensionAPI, ctx: ExtensionContext, cwd: string | null, contextWindow: () => number): RequestHost {
  let systemPrompt: string | null = null;
  try {
    systemPrompt = ctx.getSystemPrompt();
  } catch (e) {
    debugLog("getSystemPrompt", e);
  }
  return {
    systemPrompt,
    tools: () => {
      try {
        const active = new Set(pi.getActiveTools());
        return pi.getAllTools().filter((t) => active.has(t.name));
      } catch (e) {
        debugLog("getAllTools", e);
        return null;
      }
    },
    compactionAt: () => {
      const window = contextWindow();
      if (!cwd || window <= 0) return null;
      const c = piCompactionSet(cwd);
      return (c.enabled ?? true) ? window - (c.reserveTokens ?? PI_DEFAULT_RESERVE_TOKENS) : null;
    },
  };
}

/** pi's context usage; undefined when unknown or the ctx is stale. */
export function safeUsage(ctx: ExtensionContext) {
  try {
    return ctx.getContextUsage();
  } catch (e) {
    debugLog("getContextUsage", e);
    return undefined;
  }
}

/** The model pi sends the request to, for the prompt-cache rules (pi-ai reads PI_CACHE_RETENTION for the TTL). */
export function piModelOf(ctx: ExtensionContext): HostModel | undefined {
  try {
    const m = ctx.model;
    return { provider: m?.provider ?? null, api: m?.api ?? null, id: m?.id ?? null, retention: process.env.PI_CACHE_RETENTION ?? null };
  } catch {
    return undefined; // a stale ctx: the rules fall back to the config's choice
  }
}
