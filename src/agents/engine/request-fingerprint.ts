/**
 * A request as the cost model sees it (prompt-cost/request.ts), one block per message: a hash
 * of what the provider gets of it, its size, and a tag on our own messages. Memoized per
 * message object, so a host that keeps its message objects (pi) pays for new messages only;
 * computed after the request has gone out, never on the request path.
 */
import { createHash } from "node:crypto";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { BlockTag, CostBlock, CostRequest } from "../prompt-cost/request.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE, TRIM_CUSTOM_TYPE, customTypeOf } from "../messages/custom-types.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { AGED_ARG_MARKER } from "../artifacts/aged-call-args.js";

const memo = new WeakMap<object, { content: unknown; block: CostBlock }>();

const CUSTOM_TAGS: Record<string, BlockTag> = { [GAUGE_CUSTOM_TYPE]: "gauge", [RESTORE_CUSTOM_TYPE]: "restore", [RECALL_CUSTOM_TYPE]: "recall", [TRIM_CUSTOM_TYPE]: "trim" };

function tagOf(m: AgentMessage, json: string): BlockTag | undefined {
  const custom = customTypeOf(m);
  if (custom) return CUSTOM_TAGS[custom];
  if (m.role === "compactionSummary") return "compaction";
  if (m.role === "toolResult" && json.includes(STASHED_MARKER)) return "aged";
  if (m.role === "assistant" && json.includes(AGED_ARG_MARKER)) return "aged";
  return undefined;
}

function blockOf(m: AgentMessage): CostBlock {
  const content = (m as { content?: unknown }).content;
  const hit = memo.get(m);
  if (hit && hit.content === content) return hit.block;
  const json = JSON.stringify([m.role, (m as { toolCallId?: string }).toolCallId ?? "", (m as { summary?: string }).summary ?? "", content ?? ""]);
  const tag = tagOf(m, json);
  const block: CostBlock = { hash: createHash("sha1").update(json).digest("base64").slice(0, 16), tokens: Math.ceil(json.length / 4), ...(tag ? { tag } : {}) };
  memo.set(m, { content, block });
  return block;
}

/** pi-ai's placement at message granularity: the system prompt, and the last message unless it is the model's. */
export function requestFingerprint(messages: readonly AgentMessage[], systemPrompt: string | null | undefined, at: number): CostRequest {
  const sys: CostBlock = { hash: createHash("sha1").update(systemPrompt ?? "").digest("base64").slice(0, 16), tokens: Math.ceil((systemPrompt ?? "").length / 4) };
  const blocks = [sys, ...messages.map(blockOf)];
  const last = messages.at(-1);
  const breakpoints = last && last.role !== "assistant" ? [0, blocks.length - 1] : [0];
  return { blocks, breakpoints, at, outputTokens: 0 };
}
