/** One log line per failure kind until it recovers (`clear`): a read-only disk must not flood the host's log. */
import { debugLog, describeError } from "./debug-log.js";
import { tryOr } from "./fs-ops.js";

export interface WarnLogger {
  warn(message: string): void;
  /** expected paths (quiet unless the debug switch is on); optional for host loggers */
  debug?(message: string): void;
}

export const consoleWarnLogger: WarnLogger = { warn: (m) => console.warn(m), debug: (m) => debugLog(m.replace(/^\[context-manager\] /, "")) };

/** One warning through `logger` (default: the console); a broken logger must not break the host. */
export function warnSafely(logger: WarnLogger | undefined, message: string): void {
  tryOr(() => (logger ?? consoleWarnLogger).warn(message), undefined); // nowhere left to say it
}

export class OnceLogger {
  private readonly active = new Set<string>();

  constructor(private readonly sink: WarnLogger) {}

  /** Logs `kind` once until `clear(kind)`; returns whether it logged. */
  fail(kind: string, error: unknown): boolean {
    if (this.active.has(kind)) return false;
    this.active.add(kind);
    const after = "the agent continues, capture resumes when this clears";
    // a broken logger (or error) must not break the agent either
    tryOr(() => this.sink.warn(`[context-manager] ${kind} failed (${describeError(error)}); ${after}`), undefined);
    return true;
  }

  clear(kind: string): void {
    this.active.delete(kind);
  }
}
