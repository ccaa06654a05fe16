/**
 * A provider's context-overflow error reply (pi-ai's recognizer: pi drops such a reply, compacts and
 * retries). Its own file: the store and the CLI load messages/read.ts where pi is not installed.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { isContextOverflow } from "@mariozechner/pi-ai";

/** A recognizer that throws says "not one". */
export function isContextOverflowError(m: Extract<AgentMessage, { role: "assistant" }>): boolean {
  try {
    return isContextOverflow(m);
  } catch {
    return false;
  }
}
