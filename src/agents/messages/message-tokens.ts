/**
 * pi's per-message token estimate (`estimateTokens`: chars/4, a tool call counted as its name
 * plus the JSON of its arguments), with the JSON length of each tool call's arguments kept by
 * the arguments object. Without usage (a provider that reports none, the first request after a
 * compaction) the gauge estimates the whole history on every request and every committed turn,
 * and stringifying every tool call's arguments again was most of that time and a quarter of
 * the gateway's garbage (bench/gateway.ts, docs/benchmarks.md). A call's arguments are not
 * changed once the call is in the history (a streamed call gets a new object per delta).
 * Anything but an assistant message, or a call pi's count would throw on, is pi's own
 * function, so what it throws on throws here too.
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
