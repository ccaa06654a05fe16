/** Messages as the OpenClaw gateway hands the plugin (a read call and its result, replies, user text). */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

export const user = (text: string, t: number): AgentMessage => ({ role: "user", content: text, timestamp: t }) as AgentMessage;
export const reply = (text: string, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "openai-completions", provider: "mock", model: "m1", stopReason: "stop", timestamp: t }) as unknown as AgentMessage;
export const call = (id: string, path: string, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path } }], api: "openai-completions", provider: "mock", model: "m1", stopReason: "toolUse", timestamp: t }) as unknown as AgentMessage;
export const result = (id: string, text: string, t: number): AgentMessage => ({ role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: t }) as AgentMessage;

/** Distinct prose (not a secret-looking run) of about `tokens` tokens. */
export function prose(tokens: number, tag: string): string {
  const words: string[] = [];
  for (let i = 0; words.join(" ").length < tokens * 4; i++) words.push(`${tag}${i % 97} line ${i} of the module notes`);
  return words.join(" ");
}
