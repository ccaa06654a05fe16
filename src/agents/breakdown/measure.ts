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
const { user: USER, assistant_text: TEXT, thinking: THINKING, tool_calls: CALLS } = SLOT;
const { tool_results: RESULTS, images: IMAGES, handles: HANDLES, summaries: SUMMARIES, other: OTHER } = SLOT;
/** chars of pi 0.73's frame around a compaction / branch summary as sent */
const PI_COMPACTION_FRAME_CHARS = 107;
const PI_BRANCH_FRAME_CHARS = 99;
// an imported constant as a local one (a module binding read per block adds up over a history)
const FRAMING = MESSAGE_FRAMING_CHARS;
/** by custom type (a Map: a customType such as "toString" finds nothing) */
const CUSTOM_SLOT = new Map<string, number>([
  [GAUGE_CUSTOM_TYPE, SLOT.gauge],
  [RESTORE_CUSTOM_TYPE, SLOT.restore],
  [RECALL_CUSTOM_TYPE, SLOT.recall],
]);

/** Chars per category and per tool (results) over a span of messages. */
export class Tally {
  private readonly slots = new Float64Array(BREAKDOWN_CATEGORIES.length);
  /** results' chars per tool, in the order first seen */
  readonly tools = new Map<string, number>();
  total = 0;

  add(category: BreakdownCategory, chars: number): void {
    this.addAt(SLOT[category], chars);
  }

  addAt(slot: number, chars: number): void {
    if (chars <= 0) return;
    this.slots[slot]! += chars;
    this.total += chars;
  }

  get(category: BreakdownCategory): number {
    return this.slots[SLOT[category]]!;
  }
}

type Block = CallBlock & { text?: unknown; thinking?: unknown };
type Field = "role" | "content" | "toolName" | "customType" | "summary" | "command" | "output" | "timestamp";
type Msg = Partial<Record<Field | "excludeFromContext", unknown>>;

/** Text chars of a content value (string or blocks); images added to `tally` apart. */
function contentChars(value: unknown, tally: Tally): number {
  if (typeof value === "string") return value.length;
  if (!Array.isArray(value)) return 0;
  let text = 0;
  for (const b of value as Array<Block | undefined>) {
    if (b?.type === "text" && typeof b.text === "string") text += b.text.length;
    else if (b?.type === "image") tally.addAt(IMAGES, IMAGE_CHARS);
  }
  return text;
}

/** The content starts with a fresh stash's marker. */
function stashed(value: unknown): boolean {
  const first = Array.isArray(value) ? (value[0] as Block | undefined) : { type: "text", text: value };
  return first?.type === "text" && typeof first.text === "string" && first.text.startsWith(STASHED_MARKER);
}

/** Calls found by position through `calls` (in a pass), else stringified. */
function assistant(m: Msg, aged: boolean, tally: Tally, calls: ReplyTable | undefined): void {
  const c = m.content;
  if (!Array.isArray(c)) return;
  let text = 0;
  let thinking = 0;
  let callChars = 0;
  let hasCalls = false;
  for (const b of c as Array<Block | undefined>) {
    const type = b?.type;
    if (type === "text" && typeof b!.text === "string") text += b!.text.length;
    else if (type === "thinking" && typeof b!.thinking === "string") thinking += b!.thinking.length;
    else if (type === "toolCall") {
      hasCalls = true;
      if (aged || !calls) callChars += toolCallChars(b!);
    }
  }
  if (hasCalls && !aged && calls) callChars = calls.ofReply(m.timestamp, c as Block[]);
  tally.addAt(TEXT, text);
  tally.addAt(THINKING, thinking);
  tally.addAt(hasCalls ? (aged ? HANDLES : CALLS) : TEXT, callChars + FRAMING);
}

const length = (v: unknown): number => (typeof v === "string" ? v.length : 0);

/** Adds one message to `tally`; its chars (0 for what is never sent). `aged`: aging's swap (handles). */
export function measureMessage(message: AgentMessage, aged: boolean, tally: Tally, calls?: ReplyTable): number {
  const m = message as Msg;
  const before = tally.total;
  switch (m.role) {
    case "assistant":
      assistant(m, aged, tally, calls);
      break;
    case "toolResult": {
      const chars = contentChars(m.content, tally) + FRAMING;
      if (aged || stashed(m.content)) tally.addAt(HANDLES, chars);
      else {
        const tool = length(m.toolName) > 0 ? (m.toolName as string) : "(unnamed)";
        tally.addAt(RESULTS, chars);
        tally.tools.set(tool, (tally.tools.get(tool) ?? 0) + chars);
      }
      break;
    }
    case "user":
      tally.addAt(USER, contentChars(m.content, tally) + FRAMING);
      break;
    case "custom":
      if (m.customType === REPORT_CUSTOM_TYPE) break;
      tally.addAt(CUSTOM_SLOT.get(m.customType as string) ?? OTHER, contentChars(m.content, tally) + FRAMING);
      break;
    case "bashExecution":
      if (m.excludeFromContext !== true) tally.addAt(OTHER, length(m.command) + length(m.output) + FRAMING);
      break;
    case "compactionSummary":
    case "branchSummary": {
      // pi sends it framed (pi-coding-agent core/messages.js COMPACTION_SUMMARY_PREFIX / _SUFFIX)
      const frame = m.role === "compactionSummary" ? PI_COMPACTION_FRAME_CHARS : PI_BRANCH_FRAME_CHARS;
      tally.addAt(SUMMARIES, length(m.summary) + frame + FRAMING);
      break;
    }
  }
  return tally.total - before;
}
