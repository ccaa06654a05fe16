/**
 * pi's per-message `estimateTokens`, with each call's argument JSON length kept per arguments
 * object (argument-chars.ts): without usage the gauge estimates the whole history per request,
 * and re-stringifying every call was most of that time (bench/gateway.ts, docs/benchmarks.md).
 * What pi's count would throw on is left to pi's own function.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { estimateTokens } from "@mariozechner/pi-coding-agent";
import { strictCallChars } from "./argument-chars.js";

export function messageTokens(message: AgentMessage): number {
  if (message.role !== "assistant") return estimateTokens(message);
  const content = (message as AssistantMessage).content;
  if (!Array.isArray(content)) return estimateTokens(message);
  let chars = 0;
  for (const block of content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else if (block.type === "toolCall") {
      const n = strictCallChars(block);
      if (n === null) return estimateTokens(message);
      chars += n;
    }
  }
  return Math.ceil(chars / 4);
}
