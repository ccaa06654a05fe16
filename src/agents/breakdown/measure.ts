/**
 * Chars per category of one message, counted the way pi's `estimateTokens` counts them (text
 * lengths, a tool call's name + JSON of its arguments, 4,800 chars per image), plus a provider's
 * framing of each message (MESSAGE_FRAMING_CHARS, which pi's estimate and so the gauge's leave
 * out). No text is copied or cut: lengths only, one JSON.stringify per tool call (what pi's own
 * estimate does).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory } from "../context-checkpoint-schema.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { IMAGE_CHARS, MESSAGE_FRAMING_CHARS } from "../text/token-estimate.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { argumentsJsonLength } from "../messages/argument-chars.js";

/**
 * Chars of tool calls by call id, shared between breakdowns of one session: a call's arguments
 * never change once sent (aged ones are counted apart), so each is stringified once.
 */
export class CallSizes {
  private readonly sizes = new Map<string, number>();
  constructor(private readonly max = 50_000) {}

  of(b: { id?: unknown; name?: unknown; arguments?: unknown }): number {
    const id = typeof b.id === "string" ? b.id : null;
    const known = id === null ? undefined : this.sizes.get(id);
    if (known !== undefined) return known;
    const n = toolCallChars(b);
    if (id !== null) {
      if (this.sizes.size >= this.max) this.sizes.clear();
      this.sizes.set(id, n);
    }
    return n;
  }

  /**
   * Sizes the calls a request added, newest first, stopping at the first reply whose calls are
   * already known: O(new messages) per request once the history is known (the first request of
   * a resumed session sizes its whole history, once). Run after a request, off its path, so a
   * breakdown finds every call sized. Returns the calls sized.
   */
  warm(messages: readonly AgentMessage[]): number {
    let sized = 0;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as { role?: string; content?: unknown };
      if (m?.role !== "assistant" || !Array.isArray(m.content)) continue;
      let known = false;
      for (const b of m.content as Block[]) {
        if (b?.type !== "toolCall") continue;
        if (typeof b.id === "string" && this.sizes.has(b.id)) known = true;
        else {
          this.of(b);
          sized++;
        }
      }
      if (known) break;
    }
    return sized;
  }
}

/** Each category's slot in a Tally (an array add per block instead of a Map update). */
const SLOT = Object.fromEntries(BREAKDOWN_CATEGORIES.map((c, i) => [c, i])) as Record<BreakdownCategory, number>;

/** Chars per category and per tool (results), summed over a span of messages. */
export class Tally {
  private readonly slots = new Float64Array(BREAKDOWN_CATEGORIES.length);
  readonly byTool = new Map<string, number>();

  /** all chars added so far */
  total = 0;

  add(category: BreakdownCategory, chars: number): void {
    if (chars <= 0) return;
    const i = SLOT[category];
    this.slots[i] = this.slots[i]! + chars;
    this.total += chars;
  }

  addToolResult(tool: string, chars: number): void {
    this.add("tool_results", chars);
    if (chars > 0) this.byTool.set(tool, (this.byTool.get(tool) ?? 0) + chars);
  }

  /** the chars added to `category` */
  get(category: BreakdownCategory): number {
    return this.slots[SLOT[category]]!;
  }
}

type Block = { type?: string; id?: unknown; text?: unknown; thinking?: unknown; name?: unknown; arguments?: unknown };

const CUSTOM_CATEGORY: Record<string, BreakdownCategory> = {
  [GAUGE_CUSTOM_TYPE]: "gauge",
  [RESTORE_CUSTOM_TYPE]: "restore",
  [RECALL_CUSTOM_TYPE]: "recall",
};

const len = (v: unknown): number => (typeof v === "string" ? v.length : 0);

/** Text and image chars of a content value (string or blocks): text to `category` (to `tool`'s results when given), images apart. */
function content(value: unknown, tally: Tally, category: BreakdownCategory, tool?: string): void {
  let text = 0;
  if (typeof value === "string") text = value.length;
  else if (Array.isArray(value)) {
    for (const b of value as Block[]) {
      if (!b) continue;
      if (b.type === "text") text += len(b.text);
      else if (b.type === "image") tally.add("images", IMAGE_CHARS);
    }
  }
  if (tool === undefined) tally.add(category, text);
  else tally.addToolResult(tool, text);
}

/** The chars of a tool call block, as pi counts them. */
export function toolCallChars(b: Block): number {
  let args = 0;
  try {
    const value = b.arguments ?? {};
    // an object's JSON length is the one the gauge's estimate already measured (message-tokens.ts)
    args = typeof value === "object" ? argumentsJsonLength(value) : (JSON.stringify(value)?.length ?? 0);
  } catch {
    args = 0; // a cyclic or BigInt argument: pi would have failed on it first
  }
  return len(b.name) + args;
}

/** Whether a tool result is a fresh stash's replacement (handle + preview). */
function isStashed(value: unknown): boolean {
  if (!Array.isArray(value)) return typeof value === "string" && value.startsWith(STASHED_MARKER);
  const first = value[0] as Block | undefined;
  return first?.type === "text" && typeof first.text === "string" && first.text.startsWith(STASHED_MARKER);
}

/**
 * Adds one message to `tally`, its provider framing (MESSAGE_FRAMING_CHARS) to its main
 * category; returns its chars (0 for what is never sent: a /context report, a `!!` bash run).
 * `aged`: the message is aged offload's swap (its stand-ins count as handles).
 */
export function measureMessage(m: AgentMessage, aged: boolean, tally: Tally, calls?: CallSizes): number {
  const before = tally.total;
  const msg = m as { role?: string; content?: unknown; toolName?: unknown; customType?: unknown; summary?: unknown; command?: unknown; output?: unknown; excludeFromContext?: unknown };
  switch (msg.role) {
    case "user":
      content(msg.content, tally, "user");
      tally.add("user", MESSAGE_FRAMING_CHARS);
      break;
    case "assistant": {
      if (!Array.isArray(msg.content)) break;
      let main: BreakdownCategory = "assistant_text";
      for (const b of msg.content as Block[]) {
        if (!b) continue;
        if (b.type === "text") tally.add("assistant_text", len(b.text));
        else if (b.type === "thinking") tally.add("thinking", len(b.thinking));
        else if (b.type === "toolCall") {
          main = aged ? "handles" : "tool_calls";
          tally.add(main, aged || !calls ? toolCallChars(b) : calls.of(b));
        }
      }
      tally.add(main, MESSAGE_FRAMING_CHARS);
      break;
    }
    case "toolResult": {
      const tool = typeof msg.toolName === "string" && msg.toolName ? msg.toolName : "(unnamed)";
      const stored = aged || isStashed(msg.content);
      content(msg.content, tally, "handles", stored ? undefined : tool);
      if (stored) tally.add("handles", MESSAGE_FRAMING_CHARS);
      else tally.addToolResult(tool, MESSAGE_FRAMING_CHARS);
      break;
    }
    case "custom": {
      const type = typeof msg.customType === "string" ? msg.customType : "";
      if (type === REPORT_CUSTOM_TYPE) break;
      const category = CUSTOM_CATEGORY[type] ?? "other";
      content(msg.content, tally, category);
      tally.add(category, MESSAGE_FRAMING_CHARS);
      break;
    }
    case "bashExecution":
      if (msg.excludeFromContext !== true) tally.add("other", len(msg.command) + len(msg.output) + MESSAGE_FRAMING_CHARS);
      break;
    case "compactionSummary":
    case "branchSummary":
      tally.add("summaries", len(msg.summary) + MESSAGE_FRAMING_CHARS);
      break;
    default:
      break;
  }
  return tally.total - before;
}
