import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";

let clock = 1_700_000_000_000;
export function tick(): number {
  clock += 1000;
  return clock;
}

const usage0 = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export function user(text: string, timestamp = tick()): AgentMessage {
  return { role: "user", content: text, timestamp };
}

export function assistant(
  text: string,
  opts: { stopReason?: AssistantMessage["stopReason"]; toolCalls?: Array<{ id: string; name: string; arguments: Record<string, unknown> }>; totalTokens?: number; timestamp?: number; errorMessage?: string } = {},
): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  if (text) content.push({ type: "text", text });
  for (const c of opts.toolCalls ?? []) content.push({ type: "toolCall", ...c });
  return {
    role: "assistant",
    content,
    api: "faux" as AssistantMessage["api"],
    provider: "faux",
    model: "faux-1",
    usage: { ...usage0, totalTokens: opts.totalTokens ?? 0 },
    stopReason: opts.stopReason ?? (opts.toolCalls?.length ? "toolUse" : "stop"),
    ...(opts.errorMessage ? { errorMessage: opts.errorMessage } : {}),
    timestamp: opts.timestamp ?? tick(),
  };
}

export function toolResult(toolCallId: string, toolName: string, text: string, isError = false, timestamp = tick()): AgentMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError, timestamp };
}

export const CONFIG = { ...DEFAULT_CONTEXT_MANAGER_CONFIG };

export async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "ctx-state-"));
}

export async function rmDir(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}
