/** The debug switch (OPENCLAW_CONTEXT_DEBUG=1 or `debug`): what the guards swallowed; off by default. */
import { processServices } from "./process-services.js";

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
  const v = process.env.OPENCLAW_CONTEXT_DEBUG?.trim().toLowerCase();
  const set = v !== undefined && v !== "" && v !== "0" && v !== "false" && v !== "off";
  if (!set && processServices().debugFromConfig !== true) return;
  try {
    const text = detail === undefined ? "" : `: ${typeof detail === "string" ? detail : describeError(detail)}`;
    process.stderr.write(`[context-manager] debug: ${where}${text}\n`);
  } catch {
    // never let logging break the agent
  }
}
