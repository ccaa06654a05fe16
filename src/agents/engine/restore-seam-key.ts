/**
 * A restore seam's session key as the host passed it, checked: a host may call a seam with null, a
 * number or an object; the seam then does nothing and says so in one log line (once per seam and
 * kind of value), never a throw into the host's reply path (issue 28).
 */
import { describeBadKey, hostSessionKey } from "../../infra/session-key.js";
import { consoleWarnLogger, type WarnLogger } from "../../infra/log-once.js";

const reportedBadKeys = new Set<string>();

/** The key of a restore seam's call, or null (logged once) when the host passed something that is not one. */
export function seamKey(seam: string, value: unknown, logger: WarnLogger | undefined): string | null {
  const key = hostSessionKey(value);
  if (key !== null) return key;
  const what = describeBadKey(value);
  if (!reportedBadKeys.has(`${seam}\u0000${what}`)) {
    reportedBadKeys.add(`${seam}\u0000${what}`);
    try {
      (logger ?? consoleWarnLogger).warn(`[context-manager] ${seam}: the session key is ${what}, not a string; no restore block for this call`);
    } catch {
      // a broken logger must not break the host
    }
  }
  return null;
}
