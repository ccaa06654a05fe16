/** Tool calls without their result and results without their call (smart trim must add none: its replay and tests). */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { callIdsOf } from "../agents/messages/message-key.js";

export function orphansOf(messages: readonly AgentMessage[]): number {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const m of messages) {
    if (m?.role === "assistant") for (const id of callIdsOf(m)) calls.add(id);
    else if (m?.role === "toolResult") {
      const id = (m as { toolCallId?: unknown }).toolCallId;
      if (typeof id === "string") results.add(id);
    }
  }
  let n = 0;
  for (const id of calls) if (!results.has(id)) n++;
  for (const id of results) if (!calls.has(id)) n++;
  return n;
}
