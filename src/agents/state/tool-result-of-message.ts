/**
 * A toolResult message as the `tool_result` event pi would have sent for it: for hosts that
 * report no such events (the OpenClaw context-engine plugin sees only messages). The call's
 * arguments come from the assistant message that made it, looked up backwards from the result.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { toolCallsOf } from "../messages/read.js";
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
    const call = toolCallsOf(prev as AssistantMessage).find((c) => c.id === id);
    if (call) {
      input = call.arguments;
      break;
    }
  }
  return { toolName: typeof m.toolName === "string" ? m.toolName : "", toolCallId: id, input: input ?? {}, content: m.content, isError: m.isError === true };
}
