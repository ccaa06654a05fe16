/**
 * The units smart trim drops: a message alone, or an assistant message with its tool calls'
 * results (providers reject a call without its result and a result without its call).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { callIdsOf } from "../messages/message-key.js";

export interface Units {
  /** unit of each message index */
  unitOf: ArrayLike<number>;
  /** message indexes of each unit, ascending */
  members: number[][];
}

/** Tool calls without their result and results without their call (the property smart trim must keep at 0 beyond its input's). */
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
