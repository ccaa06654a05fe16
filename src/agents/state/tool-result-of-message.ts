/**
 * A toolResult message as the `tool_result` event pi would have sent for it: for hosts that
 * report no such events (the OpenClaw context-engine plugin sees only messages). The call's
 * arguments come from the assistant message that made it, looked up backwards from the result.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { asText } from "../text/gist.js";
import { type ToolResultEventLike } from "./tool-result-rules.js";

/** a result sits right after its call in every host's history; a bound keeps a hostile one cheap */
const LOOKBACK = 64;

export function toolResultEventOf(messages: readonly AgentMessage[], index: number): ToolResultEventLike {
  const m = messages[index] as ToolResultMessage;
  const id = typeof m.toolCallId === "string" ? m.toolCallId : undefined;
  let input: unknown = undefined;
  for (let i = index - 1; id !== undefined && i >= 0 && i >= index - LOOKBACK; i--) {
    const prev = messages[i];
    if (prev?.role !== "assistant") continue;
    const call = toolCallBlock(prev as AssistantMessage, id);
    if (call) {
      input = call.arguments;
      break;
    }
  }
  return { toolName: typeof m.toolName === "string" ? m.toolName : "", toolCallId: id, input: input ?? {}, content: m.content, isError: m.isError === true };
}

/** The message's tool call block with this id (messages/read.ts toolCallsOf's reading of ids), without a list of every call. */
function toolCallBlock(msg: AssistantMessage, id: string): { arguments?: unknown } | null {
  const content: unknown = msg.content;
  if (!Array.isArray(content)) return null;
  for (const block of content as unknown[]) {
    if (!block || typeof block !== "object") continue;
    const b = block as { type?: unknown; id?: unknown; arguments?: unknown };
    if (b.type === "toolCall" && asText(b.id) === id) return b;
  }
  return null;
}
