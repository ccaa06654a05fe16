/**
 * pi's per-message `estimateTokens`, each call's argument JSON length kept per arguments object:
 * re-stringifying every call was most of a usage-less gauge's time (bench/gateway.ts).
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
