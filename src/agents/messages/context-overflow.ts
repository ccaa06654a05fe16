/**
 * A provider's context-overflow error reply (pi-ai's own recognizer: pi drops such a reply,
 * compacts and retries the same turn). Total: a recognizer that throws says "not one".
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { isContextOverflow } from "@mariozechner/pi-ai";

export function isContextOverflowError(m: Extract<AgentMessage, { role: "assistant" }>): boolean {
  try {
    return isContextOverflow(m);
  } catch {
    return false;
  }
}
