/**
 * The units smart trim drops: a message alone, or an assistant message with tool calls
 * together with every result of those calls (providers reject a call without its result and
 * a result without its call). One pass, O(messages), reading only roles and ids.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { callIdsOf } from "../messages/message-key.js";

export interface Units {
  /** unit of each message index */
  unitOf: ArrayLike<number>;
  /** message indexes of each unit, ascending */
  members: number[][];
}

export function unitsOf(messages: readonly AgentMessage[]): Units {
  const unitOf = new Int32Array(messages.length);
  const members: number[][] = [];
  const callUnit = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m?.role === "toolResult") {
      const id = (m as { toolCallId?: unknown }).toolCallId;
      const u = typeof id === "string" ? callUnit.get(id) : undefined;
      if (u !== undefined) {
        unitOf[i] = u;
        members[u]!.push(i);
        continue;
      }
    }
    const u = members.length;
    members.push([i]);
    unitOf[i] = u;
    if (m?.role === "assistant") for (const id of callIdsOf(m)) callUnit.set(id, u);
  }
  return { unitOf, members };
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
