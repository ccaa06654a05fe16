/**
 * Where each host's Anthropic provider code puts `cache_control`, on a plain layout of the
 * request (tools, system blocks, messages as the Messages API receives them).
 *
 * pi (`@mariozechner/pi-ai` 0.73, dist/providers/anthropic.js): the last tool (convertTools), the
 * system prompt block, and the last block of the last message when that message is a user
 * message and the block is text, image or tool_result (convertMessages); at most 3 markers.
 *
 * OpenClaw 2026.9.6 (dist, applyAnthropicRequestCacheControl / applyAnthropicCacheControlToSystem /
 * applyAnthropicCacheControlToMessages): the last tool; the system prompt's stable part (the
 * text before its cache boundary, or the whole block without one); then, within the 4-marker
 * budget, walking the user messages from the end: the last text or image block of the latest
 * user message that has one and, budget allowing, the last tool_result seen after it.
 */
import type { CostBlock } from "../../agents/prompt-cost/prefix-cache.js";

export type ProviderBlockType = "text" | "image" | "thinking" | "tool_use" | "tool_result";

export interface LayoutMessage {
  role: "user" | "assistant";
  blocks: Array<{ type: ProviderBlockType; block: CostBlock }>;
}

export interface PromptLayout {
  tools: CostBlock[];
  /** system blocks in order; with OpenClaw's cache boundary, [stable part, dynamic part] */
  system: CostBlock[];
  /** OpenClaw: index in `system` of the stable part that carries the marker (default: every block) */
  systemStable?: number;
  messages: LayoutMessage[];
}

export type HostPlacement = "pi" | "openclaw";

/** Anthropic accepts at most 4 breakpoints per request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/** The blocks in the provider's order and the indexes the host marks. */
export function placeBreakpoints(layout: PromptLayout, host: HostPlacement): { blocks: CostBlock[]; breakpoints: number[] } {
  const blocks: CostBlock[] = [...layout.tools, ...layout.system];
  const breakpoints: number[] = [];
  if (layout.tools.length) breakpoints.push(layout.tools.length - 1);
  if (layout.system.length) {
    const s = host === "openclaw" ? (layout.systemStable ?? layout.system.length - 1) : layout.system.length - 1;
    breakpoints.push(layout.tools.length + s);
  }
  /** index in `blocks` of message m's block k */
  const starts: number[] = [];
  for (const m of layout.messages) {
    starts.push(blocks.length);
    for (const b of m.blocks) blocks.push(b.block);
  }
  const marks = host === "pi" ? piMessageMarks(layout.messages) : openclawMessageMarks(layout.messages, ANTHROPIC_MAX_BREAKPOINTS - breakpoints.length);
  for (const [m, k] of marks) breakpoints.push(starts[m]! + k);
  return { blocks, breakpoints: [...new Set(breakpoints)].sort((a, b) => a - b) };
}

function piMessageMarks(messages: LayoutMessage[]): Array<[number, number]> {
  const last = messages.length - 1;
  const m = messages[last];
  if (!m || m.role !== "user") return [];
  const k = m.blocks.length - 1;
  const t = m.blocks[k]?.type;
  return t === "text" || t === "image" || t === "tool_result" ? [[last, k]] : [];
}

function openclawMessageMarks(messages: LayoutMessage[], budget: number): Array<[number, number]> {
  if (budget <= 0) return [];
  let toolResult: [number, number] | undefined;
  for (let m = messages.length - 1; m >= 0; m--) {
    const msg = messages[m]!;
    if (msg.role !== "user") continue;
    for (let k = msg.blocks.length - 1; k >= 0; k--) {
      const t = msg.blocks[k]!.type;
      if (t === "text" || t === "image") {
        if (toolResult && budget === 1) return [toolResult];
        return toolResult ? [[m, k], toolResult] : [[m, k]];
      }
      if (t === "tool_result" && !toolResult) toolResult = [m, k];
    }
  }
  return toolResult ? [toolResult] : [];
}
