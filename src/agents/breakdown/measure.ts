/**
 * Chars per category of one message as pi's `estimateTokens` counts them, plus the provider's
 * framing (MESSAGE_FRAMING_CHARS). Runs over every message: sums in locals, added once per message.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory } from "../checkpoint/schema.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { IMAGE_CHARS, MESSAGE_FRAMING_CHARS } from "../text/token-estimate.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { type CallBlock, toolCallChars } from "../messages/argument-chars.js";
import type { ReplyTable } from "./call-sizes.js";

/** Each category's slot in a Tally (an array add, not a Map update). */
const SLOT = Object.fromEntries(BREAKDOWN_CATEGORIES.map((c, i) => [c, i])) as Record<BreakdownCategory, number>;
// resolved once: a keyed lookup per block costs more than the add
const USER = SLOT.user;
const ASSISTANT_TEXT = SLOT.assistant_text;
const THINKING = SLOT.thinking;
const TOOL_CALLS = SLOT.tool_calls;
const TOOL_RESULTS = SLOT.tool_results;
const IMAGES = SLOT.images;
const HANDLES = SLOT.handles;
const SUMMARIES = SLOT.summaries;
/** chars of pi 0.73's frame around a compaction / branch summary as sent */
const PI_COMPACTION_FRAME_CHARS = 107;
const PI_BRANCH_FRAME_CHARS = 99;
const OTHER = SLOT.other;

/** Tools a Tally scans in a list before it switches to a Map (a short scan beats hashing). */
const TOOLS_LISTED = 16;
// imported constants as local ones (a module binding read per block adds up over a history)
const FRAMING = MESSAGE_FRAMING_CHARS;
const IMAGE = IMAGE_CHARS;
/** by custom type (a Map: a customType such as "toString" finds nothing) */
const CUSTOM_SLOT = new Map<string, number>([
  [GAUGE_CUSTOM_TYPE, SLOT.gauge],
  [RESTORE_CUSTOM_TYPE, SLOT.restore],
  [RECALL_CUSTOM_TYPE, SLOT.recall],
]);
const STASHED = STASHED_MARKER;
const STASHED_FIRST = STASHED.charCodeAt(0);

/** Chars per category and per tool (results) over a span of messages. */
export class Tally {
  private readonly slots = new Float64Array(BREAKDOWN_CATEGORIES.length);
  private readonly toolNames: string[] = [];
  private readonly toolChars: number[] = [];
  private toolIndex: Map<string, number> | null = null;
  private lastTool = 0;

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

  /** Adds the results' chars per tool, times `f`, to `into` (in the order first seen). */
  addToolsTo(into: Map<string, number>, f: number): void {
    for (let i = 0; i < this.toolNames.length; i++) {
      const t = this.toolNames[i]!;
      into.set(t, (into.get(t) ?? 0) + this.toolChars[i]! * f);
    }
  }

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
type Msg = { role?: unknown; content?: unknown; toolName?: unknown; customType?: unknown; summary?: unknown; command?: unknown; output?: unknown; excludeFromContext?: unknown; timestamp?: unknown };

/** Text chars of a content value (string or blocks); images added to `tally` apart. */
function contentChars(value: unknown, tally: Tally): number {
  if (typeof value === "string") return value.length;
  if (!Array.isArray(value)) return 0;
  let text = 0;
  for (let k = 0; k < value.length; k++) {
    const b = value[k] as Block | undefined;
    if (!b) continue;
    const type = b.type;
    if (type === "text") {
      const t = b.text;
      if (typeof t === "string") text += t.length;
    } else if (type === "image") tally.addAt(IMAGES, IMAGE);
  }
  return text;
}

/** The content starts with a fresh stash's marker. */
function stashed(value: unknown): boolean {
  let text: unknown = value;
  if (Array.isArray(value)) {
    const first = value[0] as Block | undefined;
    if (!first || first.type !== "text") return false;
    text = first.text;
  }
  return typeof text === "string" && text.length > 0 && text.charCodeAt(0) === STASHED_FIRST && text.startsWith(STASHED);
}

/** Calls found by position through `calls` (in a pass), else stringified. */
function assistant(m: Msg, aged: boolean, tally: Tally, calls: ReplyTable | undefined): number {
  const c = m.content;
  if (!Array.isArray(c)) return 0;
  let text = 0;
  let thinking = 0;
  let callChars = 0;
  let hasCalls = false;
  for (let k = 0; k < c.length; k++) {
    const b = c[k] as Block | undefined;
    if (!b) continue;
    const type = b.type;
    if (type === "text") {
      const t = b.text;
      if (typeof t === "string") text += t.length;
    } else if (type === "thinking") {
      const t = b.thinking;
      if (typeof t === "string") thinking += t.length;
    } else if (type === "toolCall") {
      hasCalls = true;
      if (aged || !calls) callChars += toolCallChars(b);
    }
  }
  if (hasCalls && !aged && calls) callChars = calls.ofReply(m.timestamp, c as Block[]);
  tally.addAt(ASSISTANT_TEXT, text);
  tally.addAt(THINKING, thinking);
  const main = hasCalls ? (aged ? HANDLES : TOOL_CALLS) : ASSISTANT_TEXT;
  tally.addAt(main, callChars + FRAMING);
  return text + thinking + callChars + FRAMING;
}

/** Adds one message to `tally`; its chars (0 for what is never sent). `aged`: aging's swap (handles). */
export function measureMessage(message: AgentMessage, aged: boolean, tally: Tally, calls?: ReplyTable): number {
  const m = message as Msg;
  switch (m.role) {
    case "assistant":
      return assistant(m, aged, tally, calls);
    case "toolResult": {
      const c = m.content;
      const before = tally.total;
      const text = contentChars(c, tally);
      if (aged || stashed(c)) tally.addAt(HANDLES, text + FRAMING);
      else {
        const tool = m.toolName;
        tally.addToolResult(typeof tool === "string" && tool.length > 0 ? tool : "(unnamed)", text + FRAMING);
      }
      return tally.total - before;
    }
    case "user": {
      const before = tally.total;
      tally.addAt(USER, contentChars(m.content, tally) + FRAMING);
      return tally.total - before;
    }
    case "custom": {
      const type = typeof m.customType === "string" ? m.customType : "";
      if (type === REPORT_CUSTOM_TYPE) return 0;
      const slot = CUSTOM_SLOT.get(type) ?? OTHER;
      const before = tally.total;
      tally.addAt(slot, contentChars(m.content, tally) + FRAMING);
      return tally.total - before;
    }
    case "bashExecution": {
      if (m.excludeFromContext === true) return 0;
      const n = (typeof m.command === "string" ? m.command.length : 0) + (typeof m.output === "string" ? m.output.length : 0) + FRAMING;
      tally.addAt(OTHER, n);
      return n;
    }
    case "compactionSummary":
    case "branchSummary": {
      // pi sends it framed (pi-coding-agent core/messages.js COMPACTION_SUMMARY_PREFIX / _SUFFIX)
      const frame = m.role === "compactionSummary" ? PI_COMPACTION_FRAME_CHARS : PI_BRANCH_FRAME_CHARS;
      const n = (typeof m.summary === "string" ? m.summary.length : 0) + frame + FRAMING;
      tally.addAt(SUMMARIES, n);
      return n;
    }
    default:
      return 0;
  }
}
