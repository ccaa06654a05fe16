/**
 * The checkpoint store's warnings, one path: a pointer or retention failure logs once until a
 * written checkpoint shows it cleared (the checkpoint itself is durable; the rest is the user's
 * to fix); any other kind (ignored files, a withdrawal) once per kind for this engine.
 */
import { consoleWarnLogger, type OnceLogger, type WarnLogger } from "../../infra/log-once.js";

export class StoreWarnings {
  private readonly warned = new Set<string>();

  constructor(
    private readonly log: OnceLogger,
    private readonly logger: WarnLogger | undefined,
  ) {}

  report(warnings: readonly string[], written: boolean): void {
    for (const kind of ["pointer", "retention"] as const) {
      const w = warnings.find((x) => x.startsWith(kind));
      if (w) this.log.fail(`checkpoint ${kind}`, new Error(w));
      else if (written) this.log.clear(`checkpoint ${kind}`);
    }
    for (const w of warnings) {
      if (w.startsWith("pointer") || w.startsWith("retention")) continue;
      const kind = w.split(":")[0] ?? w;
      if (this.warned.has(kind)) continue;
      this.warned.add(kind);
      try {
        (this.logger ?? consoleWarnLogger).warn(`[context-manager] checkpoint store: ${w}`);
      } catch {
        // a broken logger must not break the agent
      }
    }
  }
}
