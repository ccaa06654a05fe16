/** The debug switch (OPENCLAW_CONTEXT_DEBUG=1 or `debug`): what the guards swallowed; off by default. */
import { processServices } from "./process-services.js";

declare module "./process-services.js" {
  interface ProcessServices { debugFromConfig?: boolean } // the `debug` config key turned the switch on
}

export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.OPENCLAW_CONTEXT_DEBUG?.trim().toLowerCase();
  return (v !== undefined && v !== "" && v !== "0" && v !== "false" && v !== "off") || processServices().debugFromConfig === true;
}

/** A config with `debug: true` turns the switch on for the process (it is never turned off again). */
export function enableDebugFromConfig(on: boolean | undefined): void {
  if (on) processServices().debugFromConfig = true;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${(error as NodeJS.ErrnoException).code ?? error.name}: ${error.message}`;
  return String(error);
}

/** One debug line on stderr (stdout may be pi's print-mode output): `[context-manager] debug: <where>: <what>`. */
export function debugLog(where: string, detail?: unknown): void {
  if (!debugEnabled()) return;
  try {
    const text = detail === undefined ? "" : `: ${typeof detail === "string" ? detail : describeError(detail)}`;
    process.stderr.write(`[context-manager] debug: ${where}${text}\n`);
  } catch {
    // never let logging break the agent
  }
}
