/**
 * What pi adds to a request besides the messages, for the context breakdown (issue 27): the
 * effective system prompt (read while the `context` event's ctx is live: a string, no copy),
 * the active tools' schemas and where pi compacts (window − `compaction.reserveTokens` of pi's
 * settings files, 16,384 by default), both read only when a breakdown is computed.
 */
import { readFileSync } from "node:fs";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { RequestHost } from "../engine/request-log.js";
import { piSettingsFiles } from "./context-manager-pi-settings.js";
import { debugLog } from "../../infra/debug-log.js";

/** pi's default `compaction.reserveTokens`. */
export const PI_DEFAULT_RESERVE_TOKENS = 16_384;

/** pi's compaction settings from its settings files (project wins); defaults when unset or unreadable. */
export function piCompactionSettings(cwd: string): { enabled: boolean; reserveTokens: number } {
  const set = piCompactionSet(cwd);
  return { enabled: set.enabled ?? true, reserveTokens: set.reserveTokens ?? PI_DEFAULT_RESERVE_TOKENS };
}

/** The compaction settings pi's settings files set (project wins); a key no file sets is absent. */
export function piCompactionSet(cwd: string): { enabled?: boolean; reserveTokens?: number } {
  const out: { enabled?: boolean; reserveTokens?: number } = {};
  for (const file of piSettingsFiles(cwd)) {
    try {
      const c = (JSON.parse(readFileSync(file, "utf8")) as { compaction?: { enabled?: unknown; reserveTokens?: unknown } } | null)?.compaction;
      if (typeof c?.enabled === "boolean") out.enabled = c.enabled;
      if (typeof c?.reserveTokens === "number" && Number.isFinite(c.reserveTokens) && c.reserveTokens >= 0) out.reserveTokens = c.reserveTokens;
    } catch {
      // no file or not JSON: pi reports a broken file itself
    }
  }
  return out;
}

/** The request's host parts, for prepareRequest. Never throws. */
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
      const c = piCompactionSettings(cwd);
      return c.enabled ? window - c.reserveTokens : null;
    },
  };
}
