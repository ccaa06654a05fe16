/**
 * The breakdown's one pass over a request's messages (what it costs per request, issue 27): every
 * message is read as it is now (a host may have cut a result or rewritten a call since the last
 * request), lengths only, the same counts as measure.ts's measureMessage. The host hands each
 * request fresh copies of its messages, so the pass's cost is reading them: one loop, sums kept
 * in locals and added once per message, no Set lookup per message (which message aging swapped
 * is found by walking the sent array alongside), the five largest kept without sorting.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory } from "../context-checkpoint-schema.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { IMAGE_CHARS, MESSAGE_FRAMING_CHARS } from "../text/token-estimate.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { type CallBlock, type CallSizes, toolCallChars } from "./call-sizes.js";
import type { Tally } from "./measure.js";

export interface ItemAt {
  index: number;
  chars: number;
  /** measured by the last reply's usage (scaled) rather than estimated */
  inPrefix: boolean;
  /** the message is aged offload's swap */
  aged: boolean;
}

const TOP = 5;
/** Positions of the sent array looked ahead for a message of the final one (steps after aging dropped a few). */
const LOOKAHEAD = 8;

const SLOT = Object.fromEntries(BREAKDOWN_CATEGORIES.map((c, i) => [c, i])) as Record<BreakdownCategory, number>;
const USER = SLOT.user;
const ASSISTANT_TEXT = SLOT.assistant_text;
const THINKING = SLOT.thinking;
const TOOL_CALLS = SLOT.tool_calls;
const IMAGES = SLOT.images;
const HANDLES = SLOT.handles;
const SUMMARIES = SLOT.summaries;
const OTHER = SLOT.other;
const FRAMING = MESSAGE_FRAMING_CHARS;
const IMAGE = IMAGE_CHARS;
const CUSTOM_SLOT = new Map<string, number>([
  [GAUGE_CUSTOM_TYPE, SLOT.gauge],
  [RESTORE_CUSTOM_TYPE, SLOT.restore],
  [RECALL_CUSTOM_TYPE, SLOT.recall],
]);
const STASHED = STASHED_MARKER;
const STASHED_FIRST = STASHED.charCodeAt(0);

type Block = CallBlock & { text?: unknown; thinking?: unknown };
type Msg = { role?: unknown; content?: unknown; toolName?: unknown; customType?: unknown; summary?: unknown; command?: unknown; output?: unknown; excludeFromContext?: unknown; timestamp?: unknown };

/** Misses (a message of `final` not in `sent`: the gauge line, a trim's stand-in) scanned for before a Set is built. */
const SCANNED_MISSES = 16;

/**
 * Which messages of `final` are aged offload's swaps: `sent` walked alongside (the steps after
 * aging drop, add and replace messages but never reorder them); a message not found there is
 * looked for in all of `sent` (a scan of pointers, then a Set when misses are many).
 */
export class AgedLookup {
  private j = 0;
  private misses = 0;
  private set: Set<AgentMessage> | null = null;
  constructor(
    private readonly sent: readonly AgentMessage[],
    private readonly flags: Uint8Array,
    private readonly count: number,
  ) {}

  isAged(m: AgentMessage): boolean {
    if (this.count === 0) return false;
    const sent = this.sent;
    const j = this.j;
    if (j < sent.length && sent[j] === m) {
      this.j = j + 1;
      return this.flags[j] === 1;
    }
    for (let k = j + 1; k < sent.length && k <= j + LOOKAHEAD; k++) {
      if (sent[k] !== m) continue;
      this.j = k + 1;
      return this.flags[k] === 1;
    }
    if (this.set === null && ++this.misses <= SCANNED_MISSES) {
      const k = sent.indexOf(m);
      return k >= 0 && this.flags[k] === 1;
    }
    if (this.set === null) {
      this.set = new Set();
      for (let k = 0; k < sent.length; k++) if (this.flags[k] === 1) this.set.add(sent[k]!);
    }
    return this.set.has(m);
  }
}

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

/** A tool result's content starts with a fresh stash's marker (handle + preview). */
function stashed(value: unknown): boolean {
  let text: unknown = value;
  if (Array.isArray(value)) {
    const first = value[0] as Block | undefined;
    if (!first || first.type !== "text") return false;
    text = first.text;
  }
  return typeof text === "string" && text.length > 0 && text.charCodeAt(0) === STASHED_FIRST && text.startsWith(STASHED);
}

/** An assistant message's chars into `tally`; calls by position through `calls` (in a pass) or stringified. */
function assistant(m: Msg, aged: boolean, tally: Tally, calls: CallSizes | undefined): number {
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

/** One message's chars into `tally`, as measureMessage counts them (0: never sent). */
function message(m: Msg, aged: boolean, tally: Tally, calls: CallSizes | undefined): number {
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
      const n = (typeof m.summary === "string" ? m.summary.length : 0) + FRAMING;
      tally.addAt(SUMMARIES, n);
      return n;
    }
    default:
      return 0;
  }
}

/**
 * Measures every message in order: up to `measured` into `prefix`, the rest into `trailing`;
 * returns the five largest, largest first.
 */
export function measurePass(messages: readonly AgentMessage[], aged: AgedLookup, measured: number, prefix: Tally, trailing: Tally, calls: CallSizes | undefined): ItemAt[] {
  const top: ItemAt[] = [];
  let smallest = 0;
  calls?.begin();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const isAged = aged.isAged(m);
    const chars = message(m as Msg, isAged, i <= measured ? prefix : trailing, calls);
    if (chars <= 0 || (top.length === TOP && chars <= smallest)) continue;
    // insert in order (largest first), keep five
    let at = top.length;
    while (at > 0 && top[at - 1]!.chars < chars) at--;
    top.splice(at, 0, { index: i, chars, inPrefix: i <= measured, aged: isAged });
    if (top.length > TOP) top.pop();
    smallest = top[top.length - 1]!.chars;
  }
  calls?.end();
  return top;
}
