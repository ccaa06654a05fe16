/**
 * "One log line per failure kind" across runs. OpenClaw builds a new engine
 * (and a new ContextState) for every run, so a per-object OnceLogger would log
 * a read-only disk again on every turn. This keeps the once-state per host
 * logger and session (stateDir + key) for the life of the process, keyed on
 * globalThis like the other registries (modules may be loaded twice).
 */
import { OnceLogger, type WarnLogger } from "../../infra/log-once.js";
import { globalSingleton } from "../../infra/global-singleton.js";
import { debugLog } from "../../infra/debug-log.js";

export interface SessionLog {
  /** the engine's logger: fail(kind) logs once until clear(kind) */
  once: OnceLogger;
  /** sink for ContextState: drops a "<kind> failed" line already logged and not yet recovered */
  stateSink: WarnLogger;
  /** the state files were written again: their failure kinds may log anew */
  stateRecovered(): void;
}

type Logs = WeakMap<WarnLogger, Map<string, SessionLog>>;

const logs = (): Logs => globalSingleton("openclaw.contextManager.sessionLogs", () => new WeakMap());

const FAILURE_LINE = /^\[context-manager\] (.+?) failed \(/;

export function sessionLog(sink: WarnLogger, stateDir: string, sessionKey: string): SessionLog {
  let bySession = logs().get(sink);
  if (!bySession) {
    bySession = new Map();
    logs().set(sink, bySession);
  }
  const id = `${stateDir}\u0000${sessionKey}`;
  let log = bySession.get(id);
  if (!log) {
    const seen = new Set<string>();
    log = {
      once: new OnceLogger(sink),
      stateSink: {
        warn(message: string) {
          const kind = FAILURE_LINE.exec(message)?.[1];
          if (kind !== undefined) {
            if (seen.has(kind)) return;
            seen.add(kind);
          }
          sink.warn(message);
        },
        debug: (message: string) => (sink.debug ? sink.debug(message) : debugLog(message.replace(/^\[context-manager\] /, ""))),
      },
      stateRecovered: () => seen.clear(),
    };
    bySession.set(id, log);
  }
  return log;
}
