/**
 * pi's settings files (`<agentDir>/settings.json`, `<cwd>/.pi/settings.json`; the project's wins key by
 * key): standalone pi's `contextManager` key (OpenClaw's keys) and pi's compaction settings.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getAgentDir } from "@mariozechner/pi-coding-agent";
import { type ContextManagerConfig, ContextManagerConfigError, resolveContextManagerConfig } from "../config/context-manager-config.js";

export const PI_SETTINGS_KEY = "contextManager";

export class PiSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PiSettingsError";
  }
}

export function piSettingsFiles(cwd: string, agentDir: string = getAgentDir()): string[] {
  return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
}

function readSection(file: string): Record<string, unknown> | undefined {
  let section: unknown;
  try {
    section = (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown> | null)?.[PI_SETTINGS_KEY];
  } catch (e) {
    if (!(e instanceof SyntaxError)) return undefined; // no file: nothing set there
    // pi itself reports a broken settings file; we only say that ours is not read from it
    throw new PiSettingsError(`${file}: not valid JSON (${e.message})`);
  }
  if (section === undefined) return undefined;
  try {
    resolveContextManagerConfig(section); // names the file of a bad key, before merging
  } catch (e) {
    if (!(e instanceof ContextManagerConfigError)) throw e;
    throw new PiSettingsError(`${file}: ${PI_SETTINGS_KEY}.${e.message.replace(/^agents\.defaults\.contextManager\./, "")}`);
  }
  return section as Record<string, unknown>;
}

/** The merged config for a pi session in `cwd`; throws PiSettingsError naming the file and key. */
export function loadPiContextManagerConfig(cwd: string, agentDir?: string): ContextManagerConfig {
  const merged: Record<string, unknown> = {};
  for (const file of piSettingsFiles(cwd, agentDir)) Object.assign(merged, readSection(file));
  try {
    return resolveContextManagerConfig(merged);
  } catch (e) {
    // a cross-key rule broken only by the merge (gaugeThreshold > checkpointThreshold)
    throw new PiSettingsError(`${piSettingsFiles(cwd, agentDir).join(" + ")}: ${(e as Error).message.replace(/^agents\.defaults\.contextManager\./, `${PI_SETTINGS_KEY}.`)}`);
  }
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
