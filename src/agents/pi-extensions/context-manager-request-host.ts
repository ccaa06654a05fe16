/**
 * What pi adds to a request besides the messages, for the context breakdown: the system prompt
 * (read while the ctx is live), the active tools' schemas and where pi compacts (window − pi's
 * `compaction.reserveTokens`), the last two read only when a breakdown is computed.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { RequestHost } from "../engine/request-log.js";
import { piCompactionSet } from "./context-manager-pi-settings.js";
import { debugLog } from "../../infra/debug-log.js";

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
