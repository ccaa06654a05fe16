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
import { type CallBlock, toolCallChars } from "./call-sizes.js";

/** Where a pass finds a reply's call sizes (call-sizes.ts ReplyTable), in order. */
export interface CallLookup {
  ofReply(timestamp: unknown, blocks: readonly CallBlock[]): number;
}

/** Each category's slot in a Tally (an array add per block instead of a Map update). */
const SLOT = Object.fromEntries(BREAKDOWN_CATEGORIES.map((c, i) => [c, i])) as Record<BreakdownCategory, number>;
// the slots measureMessage adds to, resolved once (a keyed lookup per block costs more than the add)
const USER = SLOT.user;
const ASSISTANT_TEXT = SLOT.assistant_text;
const THINKING = SLOT.thinking;
const TOOL_CALLS = SLOT.tool_calls;
const TOOL_RESULTS = SLOT.tool_results;
const IMAGES = SLOT.images;
const HANDLES = SLOT.handles;
const SUMMARIES = SLOT.summaries;
const OTHER = SLOT.other;

/** Tools whose results a Tally keeps in a list before it switches to a Map (a scan of a few names beats hashing each one). */
const TOOLS_LISTED = 16;
// imported constants as local ones (a module binding read per block adds up over a history)
const FRAMING = MESSAGE_FRAMING_CHARS;
const IMAGE = IMAGE_CHARS;

/** Chars per category and per tool (results), summed over a span of messages. */
export class Tally {
  private readonly slots = new Float64Array(BREAKDOWN_CATEGORIES.length);
  private readonly toolNames: string[] = [];
  private readonly toolChars: number[] = [];
  private toolIndex: Map<string, number> | null = null;
  private lastTool = 0;

  /** all chars added so far */
  total = 0;

  add(category: BreakdownCategory, chars: number): void {
    this.addAt(SLOT[category], chars);
  }

  addAt(slot: number, chars: number): void {
    if (chars <= 0) return;
    this.slots[slot] = this.slots[slot]! + chars;
    this.total += chars;
  }

  addToolResult(tool: string, chars: number): void {
    this.addAt(TOOL_RESULTS, chars);
    if (chars <= 0) return;
    const i = this.toolSlot(tool);
    this.toolChars[i] = this.toolChars[i]! + chars;
  }

  /** Adds the chars of results per tool, times `f`, to `into` (tools in the order first seen). */
  addToolsTo(into: Map<string, number>, f: number): void {
    for (let i = 0; i < this.toolNames.length; i++) {
      const t = this.toolNames[i]!;
      into.set(t, (into.get(t) ?? 0) + this.toolChars[i]! * f);
    }
  }

  /** the chars added to `category` */
  get(category: BreakdownCategory): number {
    return this.slots[SLOT[category]]!;
  }

  private toolSlot(tool: string): number {
    const names = this.toolNames;
    if (names[this.lastTool] === tool) return this.lastTool;
    let i = -1;
    if (this.toolIndex) i = this.toolIndex.get(tool) ?? -1;
    else {
      for (let j = 0; j < names.length; j++) {
        if (names[j] !== tool) continue;
        i = j;
        break;
      }
    }
    if (i < 0) {
      i = names.length;
      names.push(tool);
      this.toolChars.push(0);
      if (this.toolIndex) this.toolIndex.set(tool, i);
      else if (names.length > TOOLS_LISTED) this.toolIndex = new Map(names.map((n, j) => [n, j]));
    }
    this.lastTool = i;
    return i;
  }
}

type Block = CallBlock & { text?: unknown; thinking?: unknown };

/** our blocks' slots by custom type (a Map: a customType such as "toString" finds nothing) */
const CUSTOM_SLOT = new Map<string, number>([
  [GAUGE_CUSTOM_TYPE, SLOT.gauge],
  [RESTORE_CUSTOM_TYPE, SLOT.restore],
  [RECALL_CUSTOM_TYPE, SLOT.recall],
]);

const len = (v: unknown): number => (typeof v === "string" ? v.length : 0);

/** Text and image chars of a content value (string or blocks): text to `slot` (to `tool`'s results when given), images apart. */
function content(value: unknown, tally: Tally, slot: number, tool?: string): void {
  let text = 0;
  if (typeof value === "string") text = value.length;
  else if (Array.isArray(value)) {
    for (const b of value as Block[]) {
      if (!b) continue;
      if (b.type === "text") text += len(b.text);
      else if (b.type === "image") tally.addAt(IMAGES, IMAGE);
    }
  }
  if (tool === undefined) tally.addAt(slot, text);
  else tally.addToolResult(tool, text);
}

/** Whether a tool result is a fresh stash's replacement (handle + preview). */
function isStashed(value: unknown): boolean {
  if (!Array.isArray(value)) return startsStashed(value);
  const first = value[0] as Block | undefined;
  return first?.type === "text" && startsStashed(first.text);
}

const STASHED = STASHED_MARKER;
const STASHED_FIRST = STASHED.charCodeAt(0);

/** The marker at the start of `text` (its first char compared first: most results are not stashed). */
function startsStashed(text: unknown): boolean {
  return typeof text === "string" && text.charCodeAt(0) === STASHED_FIRST && text.startsWith(STASHED);
}

/**
 * Adds one message to `tally`, its provider framing (MESSAGE_FRAMING_CHARS) to its main
 * category; returns its chars (0 for what is never sent: a /context report, a `!!` bash run).
 * `aged`: the message is aged offload's swap (its stand-ins count as handles). `calls`: the
 * message is the next of a pass over a request in order (ReplyTable.begin), its calls found by
 * position; without, its calls are stringified.
 */
export function measureMessage(m: AgentMessage, aged: boolean, tally: Tally, calls?: CallLookup): number {
  const before = tally.total;
  const msg = m as { role?: string; content?: unknown; toolName?: unknown; customType?: unknown; summary?: unknown; command?: unknown; output?: unknown; excludeFromContext?: unknown };
  switch (msg.role) {
    case "user":
      content(msg.content, tally, USER);
      tally.addAt(USER, FRAMING);
      break;
    case "assistant": {
      if (!Array.isArray(msg.content)) break;
      let main = ASSISTANT_TEXT;
      for (const b of msg.content as Block[]) {
        if (!b) continue;
        if (b.type === "text") tally.addAt(ASSISTANT_TEXT, len(b.text));
        else if (b.type === "thinking") tally.addAt(THINKING, len(b.thinking));
        else if (b.type === "toolCall") {
          main = aged ? HANDLES : TOOL_CALLS;
          if (aged || !calls) tally.addAt(main, toolCallChars(b));
        }
      }
      if (main === TOOL_CALLS && calls) tally.addAt(TOOL_CALLS, calls.ofReply((m as { timestamp?: unknown }).timestamp, msg.content as Block[]));
      tally.addAt(main, FRAMING);
      break;
    }
    case "toolResult": {
      const tool = typeof msg.toolName === "string" && msg.toolName ? msg.toolName : "(unnamed)";
      const stored = aged || isStashed(msg.content);
      content(msg.content, tally, HANDLES, stored ? undefined : tool);
      if (stored) tally.addAt(HANDLES, FRAMING);
      else tally.addToolResult(tool, FRAMING);
      break;
    }
    case "custom": {
      const type = typeof msg.customType === "string" ? msg.customType : "";
      if (type === REPORT_CUSTOM_TYPE) break;
      const slot = CUSTOM_SLOT.get(type) ?? OTHER;
      content(msg.content, tally, slot);
      tally.addAt(slot, FRAMING);
      break;
    }
    case "bashExecution":
      if (msg.excludeFromContext !== true) tally.addAt(OTHER, len(msg.command) + len(msg.output) + FRAMING);
      break;
    case "compactionSummary":
    case "branchSummary":
      tally.addAt(SUMMARIES, len(msg.summary) + FRAMING);
      break;
    default:
      break;
  }
  return tally.total - before;
}
