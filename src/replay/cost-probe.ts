/**
 * The replay's side of the cost model (src/agents/prompt-cost/): every chat request as the
 * faux model received it, laid out as Anthropic's Messages API gets it from pi-ai (tools,
 * system, then messages with consecutive tool results merged into one user message, empty
 * text dropped), each block hashed and counted (chars/4, as promptTokens), our own blocks
 * tagged by the fixed markers they start with, and billed under every caching model at the
 * transcript's own clock (the recorded reply's timestamp is when its request was sent).
 */
import { createHash } from "node:crypto";
import type { Context } from "@mariozechner/pi-ai";
import { CostLedger } from "./billing/ledger.js";
import type { LayoutMessage, PromptLayout, ProviderBlockType } from "./billing/placement.js";
import type { BlockTag, CostBlock } from "../agents/prompt-cost/prefix-cache.js";
import type { CostTotals } from "./billing/session-cost.js";
import { COMPACTION_SUMMARY_HEADER, RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../agents/inject/markers.js";
import { LEGACY_RECALL_HEADER, RECALL_HEADER } from "../agents/archive/segments.js";
import { TRIM_MARKER_TEXT } from "../agents/trim/smart-trim.js";
import { STASHED_MARKER } from "../agents/artifacts/preview.js";
import { AGED_ARG_MARKER } from "../agents/artifacts/offload.js";

/** pi's frame of a compaction summary (pi-coding-agent core/messages.js COMPACTION_SUMMARY_PREFIX) */
const PI_COMPACTION_PREFIX = "The conversation history before this point was compacted";
const GAUGE_LINE = /^\[Context: \d+% \|/;
/** images: Anthropic bills by pixel size, not known here; a typical screenshot */
const IMAGE_TOKENS = 1600;

/**
 * One chat request as billed under anthropic-pi (`npm run replay -- … --trace <file>`): what the
 * request-by-request comparisons of docs/benchmarks.md are computed from.
 */
export interface CostTraceRow {
  request: number;
  at: number;
  messages: number;
  tokens: number;
  toolTokens: number;
  /** tokens of the blocks carrying each of our tags (a tagged block counts whole) */
  tagged: Partial<Record<BlockTag, number>>;
  read: number;
  write: number;
  uncached: number;
  cause: string | null;
}

export interface CostReport {
  /** "transcript": request times from the recorded replies; "none": no timestamps, every request inside the TTL */
  clock: "transcript" | "none";
  requests: number;
  models: Record<string, CostTotals>;
}

type Block = { type: string; text?: string; thinking?: string; name?: string; id?: string; arguments?: unknown; data?: string };

const digest = (s: string) => createHash("sha1").update(s).digest("base64").slice(0, 16);
const tokens = (chars: number) => Math.ceil(chars / 4);

function textTag(text: string): BlockTag | undefined {
  const head = text.slice(0, 400);
  if (GAUGE_LINE.test(head)) return "gauge";
  if (head.includes(RESTORE_HEADER_POST_COMPACTION) || head.includes(RESTORE_HEADER_RESUME)) return "restore";
  if (head.includes(COMPACTION_SUMMARY_HEADER) || head.startsWith(PI_COMPACTION_PREFIX)) return "compaction";
  if (head.includes(RECALL_HEADER) || head.includes(LEGACY_RECALL_HEADER)) return "recall";
  if (head.startsWith(TRIM_MARKER_TEXT)) return "trim";
  return undefined;
}

const costBlock = (kind: string, text: string, tag?: BlockTag, count = tokens(text.length)): CostBlock => ({ tokens: count, hash: digest(`${kind}\u0000${text}`), ...(tag ? { tag } : {}) });

export class CostProbe {
  private readonly ledger = new CostLedger();
  private readonly toolBlocks = new WeakMap<object, CostBlock>();
  /** message -> its blocks, checked against the content array it was computed from */
  private readonly messageBlocks = new WeakMap<object, { content: unknown; chars: number; blocks: LayoutMessage["blocks"] }>();
  private requests = 0;
  private lastAt = 0;
  private clocked = false;

  /** `trace`: told every chat request as billed under anthropic-pi */
  constructor(private readonly trace?: (row: CostTraceRow) => void) {}

  /** `at`: the request's time on the transcript's clock (undefined: the previous one's) */
  onChatRequest(context: Context, at: number | undefined, outputTokens: number): void {
    if (at !== undefined && Number.isFinite(at)) {
      this.lastAt = Math.max(this.lastAt, at);
      this.clocked = true;
    }
    this.requests++;
    const layout = this.layout(context);
    this.ledger.addRequest(layout, this.lastAt, outputTokens);
    if (this.trace) this.trace(this.traceRow(layout, context.messages.length));
  }

  private traceRow(layout: PromptLayout, messages: number): CostTraceRow {
    const tagged: CostTraceRow["tagged"] = {};
    let tokens = 0;
    for (const b of [...layout.tools, ...layout.system, ...layout.messages.flatMap((m) => m.blocks.map((x) => x.block))]) {
      tokens += b.tokens;
      if (b.tag) tagged[b.tag] = (tagged[b.tag] ?? 0) + b.tokens;
    }
    const bill = this.ledger.session("anthropic-pi")?.last;
    const toolTokens = layout.tools.reduce((n, b) => n + b.tokens, 0);
    return { request: this.requests, at: this.lastAt, messages, tokens, toolTokens, tagged, read: bill?.read ?? 0, write: bill?.write ?? 0, uncached: bill?.uncached ?? 0, cause: bill?.cause ?? null };
  }

  onSummarizerRequest(inputTokens: number, outputTokens: number): void {
    this.ledger.addSummarizer({ inputTokens, outputTokens });
  }

  report(): CostReport {
    return { clock: this.clocked ? "transcript" : "none", requests: this.requests, models: this.ledger.totals() };
  }

  private layout(context: Context): PromptLayout {
    const tools = (context.tools ?? []).map((t) => {
      let b = this.toolBlocks.get(t);
      if (!b) this.toolBlocks.set(t, (b = costBlock("tool", JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }))));
      return b;
    });
    const system = context.systemPrompt ? [costBlock("system", context.systemPrompt)] : [];
    const messages: LayoutMessage[] = [];
    for (const m of context.messages) {
      const blocks = this.blocksOf(m as unknown as { role: string; content: unknown; toolCallId?: string; isError?: boolean });
      if (!blocks.length) continue;
      const role = m.role === "assistant" ? "assistant" : "user";
      const prev = messages.at(-1);
      // pi-ai sends consecutive tool results as one user message
      if (m.role === "toolResult" && prev?.role === "user" && prev.blocks.every((b) => b.type === "tool_result")) prev.blocks.push(...blocks);
      else messages.push({ role, blocks: [...blocks] });
    }
    return { tools, system, messages };
  }

  private blocksOf(m: { role: string; content: unknown; toolCallId?: string; isError?: boolean }): LayoutMessage["blocks"] {
    const chars = Array.isArray(m.content) ? (m.content as Block[]).reduce((n, b) => n + (b.text?.length ?? 0) + (b.thinking?.length ?? 0), 0) : String(m.content ?? "").length;
    const memo = this.messageBlocks.get(m);
    if (memo && memo.content === m.content && memo.chars === chars) return memo.blocks;
    const blocks = this.convert(m);
    this.messageBlocks.set(m, { content: m.content, chars, blocks });
    return blocks;
  }

  private convert(m: { role: string; content: unknown; toolCallId?: string; isError?: boolean }): LayoutMessage["blocks"] {
    const items: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? (m.content as Block[]) : [];
    if (m.role === "toolResult") {
      const text = items.map((b) => (b.type === "text" ? (b.text ?? "") : `[image:${b.data?.length ?? 0}]`)).join("\n");
      const images = items.filter((b) => b.type === "image").length;
      const tag = text.startsWith(STASHED_MARKER) ? ("aged" as const) : textTag(text);
      return [{ type: "tool_result", block: costBlock(`result:${m.toolCallId}:${m.isError ? 1 : 0}`, text, tag, tokens(text.length) + images * IMAGE_TOKENS) }];
    }
    const out: LayoutMessage["blocks"] = [];
    for (const b of items) {
      if (b.type === "text" && b.text?.trim()) out.push({ type: "text" as ProviderBlockType, block: costBlock(m.role, b.text, textTag(b.text)) });
      else if (b.type === "image") out.push({ type: "image", block: costBlock("image", String(b.data ?? ""), undefined, IMAGE_TOKENS) });
      else if (b.type === "thinking" && b.thinking?.trim()) out.push({ type: "thinking", block: costBlock("thinking", b.thinking) });
      else if (b.type === "toolCall") {
        const args = JSON.stringify(b.arguments ?? {});
        out.push({ type: "tool_use", block: costBlock(`call:${b.id}:${b.name}`, args, args.includes(AGED_ARG_MARKER) ? "aged" : undefined, tokens(args.length + (b.name?.length ?? 0))) });
      }
    }
    return out;
  }
}

/** chars/4 of a recorded reply (text, thinking, tool calls): its output tokens, the same in every run */
export function replyOutputTokens(reply: { content?: unknown }): number {
  if (!Array.isArray(reply.content)) return 0;
  let chars = 0;
  for (const b of reply.content as Block[]) chars += b.type === "toolCall" ? (b.name?.length ?? 0) + JSON.stringify(b.arguments ?? {}).length : (b.text?.length ?? 0) + (b.thinking?.length ?? 0);
  return tokens(chars);
}
