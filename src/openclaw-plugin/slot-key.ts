/**
 * The key a plugin session slot is stored under: the host's session key, or `openclaw:<session id>`
 * when the run has none. A key that is not a string (null, a number, an object: a host bug) is
 * treated as none and said once per kind of value (issue 28); `.trim()` on it used to throw a
 * TypeError into every call of the slot.
 */
import { describeBadKey, hostSessionKey } from "../infra/session-key.js";
import { consoleWarnLogger, type WarnLogger } from "../infra/log-once.js";

const reported = new Set<string>();

export function slotKeyOf(sessionKey: unknown, sessionId: string, logger?: WarnLogger): string {
  const key = hostSessionKey(sessionKey)?.trim();
  if (key) return key;
  if (sessionKey !== undefined && sessionKey !== "" && !reported.has(describeBadKey(sessionKey))) {
    reported.add(describeBadKey(sessionKey));
    try {
      (logger ?? consoleWarnLogger).warn(`[context-manager] the session key is ${describeBadKey(sessionKey)}, not a string: stored under openclaw:<session id>`);
    } catch {
      // a broken logger must not break the host
    }
  }
  return `openclaw:${sessionId}`;
}
