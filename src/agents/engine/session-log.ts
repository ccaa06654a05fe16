/**
 * "One log line per failure kind" across runs. OpenClaw builds a new engine
 * (and a new ContextState) for every run, so a per-object OnceLogger would log
 * a read-only disk again on every turn. This keeps the once-state per host
 * logger and session (stateDir + key), held by the key's Session (session.ts): an evicted
 * Session's next failure of a kind is logged once more.
 */
import { OnceLogger, type WarnLogger } from "../../infra/log-once.js";
import { sessionAt } from "./cache-budget.js";
import type { SessionLog } from "./session.js";
import { debugLog } from "../../infra/debug-log.js";

export type { SessionLog };

const FAILURE_LINE = /^\[context-manager\] (.+?) failed \(/;

export function sessionLog(sink: WarnLogger, stateDir: string, sessionKey: string): SessionLog {
  const bySink = sessionAt(stateDir, sessionKey).logs;
  let log = bySink.get(sink);
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
    bySink.set(sink, log);
  }
  return log;
}
