/**
 * Tools registered under the recorded names: each call returns the recorded
 * result of its toolCallId (a recorded failure is thrown, so pi reports it as
 * isError exactly like a failing real tool). Extension tools replace pi's
 * built-ins of the same name.
 */
import { Type } from "@mariozechner/pi-ai";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { textOf, type RecordedToolResult } from "./transcript.js";

export interface ToolDelivery {
  result: RecordedToolResult;
  /** input as pi passed it to the tool */
  input: Record<string, unknown>;
}

export interface ReplayToolsHooks {
  /** awaited before the result is returned (the replay clock lets a skipped gap start first) */
  onDelivered(d: ToolDelivery): void | Promise<void>;
  onMissing(toolName: string, toolCallId: string): void;
}

export function replayToolsExtension(
  toolNames: readonly string[],
  results: ReadonlyMap<string, readonly RecordedToolResult[]>,
  hooks: ReplayToolsHooks,
): ExtensionFactory {
  // shared by every run (the factory runs once per inbound): a repeated id takes the next recorded result
  const used = new Map<string, number>();
  return (pi) => {
    for (const name of toolNames) {
      pi.registerTool({
        name,
        label: name,
        description: `Replayed tool ${name}: returns the recorded result.`,
        parameters: Type.Object({}, { additionalProperties: true }),
        async execute(toolCallId, params) {
          const n = used.get(toolCallId) ?? 0;
          const result = results.get(toolCallId)?.[n];
          used.set(toolCallId, n + 1);
          if (!result) {
            hooks.onMissing(name, toolCallId);
            throw new Error("[replay] no recorded result for this tool call (interrupted in the recording)");
          }
          await hooks.onDelivered({ result, input: (params ?? {}) as Record<string, unknown> });
          if (result.isError) throw new Error(textOf(result.content) || "(recorded failure without text)");
          return { content: result.content, details: undefined };
        },
      });
    }
  };
}
