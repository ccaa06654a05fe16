/**
 * The context breakdown, lazily from a request already sent, lengths only. The last
 * reply's usage is spread over the prefix's categories by their estimate, so they sum to the gauge's
 * total (docs/cli.md#breakdown); when the host hides system prompt and tools, the rest is `unattributed`.
 * Chars per category of a message as pi's `estimateTokens` counts them, plus the provider's framing.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory, type BreakdownItem, type ContextBreakdown } from "../checkpoint/schema.js";
import type { CallSizes, ReplyTable } from "./call-sizes.js";
import { agedKey, messageKey } from "../messages/message-key.js";
import { HANDLE_IN_TEXT_RE } from "../artifacts/handle.js";
import { safeGist } from "../text/gist.js";
import { type CallBlock, toolCallChars } from "../messages/argument-chars.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { IMAGE_CHARS, MESSAGE_FRAMING_CHARS, tokensOfChars } from "../text/token-estimate.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { contentText } from "../messages/read.js";
import { lastUsableReply, replyTokens } from "../gauge/context-gauge.js";

/** Each category's slot in a Tally (an array add, not a Map update). */
const SLOT = Object.fromEntries(BREAKDOWN_CATEGORIES.map((c, i) => [c, i])) as Record<BreakdownCategory, number>;
// resolved once: a keyed lookup per block costs more than the add
const { user: USER, assistant_text: TEXT, thinking: THINKING, tool_calls: CALLS } = SLOT;
const { tool_results: RESULTS, images: IMAGES, handles: HANDLES, summaries: SUMMARIES, other: OTHER } = SLOT;
// an imported constant as a local one (a module binding read per block adds up over a history)
const FRAMING = MESSAGE_FRAMING_CHARS;
/** by custom type (a Map: a customType such as "toString" finds nothing) */
const CUSTOM_SLOT = new Map<string, number>([
  [GAUGE_CUSTOM_TYPE, SLOT.gauge],
  [RESTORE_CUSTOM_TYPE, SLOT.restore],
  [RECALL_CUSTOM_TYPE, SLOT.recall],
]);

/** Chars per category and per tool (results) over a span of messages. */
class Tally {
  readonly slots = new Float64Array(BREAKDOWN_CATEGORIES.length);
  /** results' chars per tool, in the order first seen */
  readonly tools = new Map<string, number>();
  total = 0;

  addAt(slot: number, chars: number): void {
    if (chars <= 0) return;
    this.slots[slot]! += chars;
    this.total += chars;
  }
}

type Block = CallBlock & { text?: unknown; thinking?: unknown };
type Field = "role" | "content" | "toolName" | "toolCallId" | "customType" | "summary" | "command" | "output";
type Msg = Partial<Record<Field | "timestamp" | "excludeFromContext", unknown>>;

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

const length = (v: unknown): number => (typeof v === "string" ? v.length : 0);

/** Adds one message to `tally`; its chars (0 for what is never sent). `aged`: aging's swap (handles). */
function measureMessage(message: AgentMessage, aged: boolean, tally: Tally, calls?: ReplyTable): number {
  const m = message as Msg;
  const before = tally.total;
  switch (m.role) {
    case "assistant": {
      // calls found by position through `calls` (in a pass), else stringified
      const c = m.content;
      if (!Array.isArray(c)) break;
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
      break;
    }
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
    case "branchSummary":
      // pi 0.73 sends it framed: 107 / 99 chars (pi-coding-agent core/messages.js COMPACTION_SUMMARY_PREFIX / _SUFFIX)
      tally.addAt(SUMMARIES, length(m.summary) + (m.role === "compactionSummary" ? 107 : 99) + FRAMING);
      break;
  }
  return tally.total - before;
}

/** A tool as the request declares it (pi's ToolInfo, pi-ai's Tool). */
export interface ToolSchema {
  name: string;
  description?: string;
  parameters?: unknown;
}

export type AgedSet = Pick<ReadonlySet<string>, "has">;

/** What the host adds to the messages: null when it does not expose it. */
export interface HostParts {
  systemPrompt: string | null;
  tools: readonly ToolSchema[] | null;
}

/** A request before and after aged offload: same length, same order, swapped messages differ. */
export interface AgingView {
  unaged: readonly AgentMessage[];
  sent: readonly AgentMessage[];
}

export interface BreakdownInput {
  /** the messages as sent (after every step of engine/request.ts) */
  messages: readonly AgentMessage[];
  aging?: AgingView | null;
  /** tokens smart trim newly left out: the last usage counted them, so it is not used */
  newlyTrimmedTokens?: number;
  /** what the request before had aged, when `agedBefore` does not know; null: nothing newly aged */
  previousAged?: AgedSet | null;
  /** What the request the measured reply answered had aged, by its last message (after an abort: older). */
  agedBefore?: (endKey: string) => AgedSet | undefined;
  host: HostParts;
  contextWindow: number;
  checkpointThreshold: number;
  /** tokens at which the host compacts; null/absent: unknown */
  compactionAt?: number | null;
  /** the handle of a result stored for aging but still shown whole */
  handleOf?: (toolCallId: string) => string | null;
  calls?: CallSizes;
}

// Every message is read as it is now (a host may have cut a result since): the pass's cost is
// that read, so nothing else per message (docs/benchmarks.md#context-breakdown-issue-27).
const TOP = 5;
/** Positions of `sent` looked ahead (steps after aging drop a few messages). */
const LOOKAHEAD = 8;

/** Tool schema sizes by parameters object (a host's tools keep theirs for the session). */
const schemaSizes = new WeakMap<object, { name: string; description: string | undefined; chars: number }>();

function schemaChars(t: ToolSchema): number {
  const key = t.parameters !== null && typeof t.parameters === "object" ? t.parameters : null;
  const known = key ? schemaSizes.get(key) : undefined;
  if (known && known.name === t.name && known.description === t.description) return known.chars;
  let chars: number;
  try {
    chars = JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })?.length ?? 0;
  } catch {
    chars = t.name.length;
  }
  if (key) schemaSizes.set(key, { name: t.name, description: t.description, chars });
  return chars;
}

/** The keys of what a request had aged (none when the lengths disagree). */
export function agedKeys(view: AgingView | null | undefined): Set<string> {
  const out = new Set<string>();
  if (!view || view.unaged.length !== view.sent.length) return out;
  for (let i = 0; i < view.sent.length; i++) {
    const k = view.sent[i] === view.unaged[i] ? null : agedKey(view.unaged[i]!);
    if (k !== null) out.add(k);
  }
  return out;
}

/** Integers summing to the rounded total (largest remainder); typed arrays: map/reduce deoptimized (~0.45 ms). */
function roundToSum(values: Float64Array, total: number): Float64Array {
  const floors = new Float64Array(values.length);
  let left = total;
  for (let i = 0; i < values.length; i++) left -= floors[i] = Math.floor(values[i]!);
  const order = [...values.keys()].sort((a, b) => values[b]! - floors[b]! - (values[a]! - floors[a]!));
  for (let k = 0; k < order.length && left > 0; k++, left--) floors[order[k]!]! += 1;
  return floors;
}

/** What aging took out (chars), what of it since the reply measured (its usage counted that), which it swapped. */
function agingCut(input: BreakdownInput, { sent, unaged }: AgingView, measured: number) {
  const { messages, calls, agedBefore, previousAged } = input;
  const endKey = measured > 0 ? messageKey(messages[measured - 1]) : null;
  const previous = (endKey !== null ? agedBefore?.(endKey) : undefined) ?? previousAged ?? null;
  const measuredInSent = measured >= 0 ? sent.lastIndexOf(messages[measured]!) : -1;
  const scratch = new Tally();
  let removed = 0;
  let newly = 0;
  let count = 0;
  calls?.aged.begin();
  for (let i = 0; i < sent.length; i++) {
    if (sent[i] === unaged[i]) continue;
    count++;
    const whole = measureMessage(unaged[i]!, false, scratch, calls?.aged);
    const cut = Math.max(0, whole - measureMessage(sent[i]!, true, scratch));
    removed += cut;
    if (i < measuredInSent && previous !== null && !previous.has(agedKey(unaged[i]!) ?? "")) newly += cut;
  }
  calls?.aged.end();
  // which messages are aging's swaps: `sent` walked alongside (later steps never reorder), a Set past a miss
  let j = 0;
  let set: Set<AgentMessage> | null = null;
  const isAged = (m: AgentMessage): boolean => {
    for (let k = j; k < sent.length && k <= j + LOOKAHEAD; k++) {
      if (sent[k] !== m) continue;
      j = k + 1;
      return m !== unaged[k];
    }
    set ??= new Set(sent.filter((s, k) => s !== unaged[k]));
    return set.has(m);
  };
  return { removed, newly, count, isAged: count > 0 ? isAged : null };
}

export function computeBreakdown(input: BreakdownInput): ContextBreakdown {
  const { messages, host, aging: view } = input;
  const measured = lastUsableReply(messages);
  const aging = view && view.unaged.length === view.sent.length ? agingCut(input, view, measured) : null;

  const prefix = new Tally();
  const trailing = new Tally();
  if (host.systemPrompt !== null) prefix.addAt(SLOT.system_prompt, host.systemPrompt.length);
  const definitions = (host.tools ?? []).map((t) => ({ tool: t.name, chars: schemaChars(t) }));
  for (const d of definitions) prefix.addAt(SLOT.tool_definitions, d.chars);

  // one pass: each message into the prefix (up to the measured reply) or the trailing tally, the five largest kept
  const top: ItemAt[] = [];
  input.calls?.main.begin();
  for (let i = 0; i < messages.length; i++) {
    const isAged = aging?.isAged?.(messages[i]!) ?? false;
    const chars = measureMessage(messages[i]!, isAged, i <= measured ? prefix : trailing, input.calls?.main);
    if (chars <= 0 || (top.length === TOP && chars <= top[TOP - 1]!.chars)) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]!.chars < chars) at--;
    top.splice(at, 0, { index: i, chars, inPrefix: i <= measured, aged: isAged });
    if (top.length > TOP) top.pop();
  }
  input.calls?.main.end();

  // the measured reply's usage spread over the prefix by its estimate (its rest unattributed when the host hides parts)
  const prefixTokens = prefix.total / 4;
  let scale = 1;
  let unattributed = 0;
  const usage = measured >= 0 && !((input.newlyTrimmedTokens ?? 0) > 0) ? replyTokens(messages[measured]!) : null;
  if (usage !== null) {
    const measuredPrefix = Math.max(0, usage - tokensOfChars(aging?.newly ?? 0));
    const hostKnown = host.systemPrompt !== null && host.tools !== null;
    if (hostKnown || measuredPrefix < prefixTokens) scale = prefixTokens > 0 ? measuredPrefix / prefixTokens : 1;
    else unattributed = measuredPrefix - prefixTokens;
  }
  const floats = new Float64Array(BREAKDOWN_CATEGORIES.length);
  let sum = 0;
  BREAKDOWN_CATEGORIES.forEach((c, i) => {
    sum += floats[i] = c === "unattributed" ? unattributed : (prefix.slots[i]! / 4) * scale + trailing.slots[i]! / 4;
  });
  const total = Math.round(sum);
  const rounded = roundToSum(floats, total);
  const categories: Partial<Record<BreakdownCategory, number>> = {};
  for (const [i, c] of BREAKDOWN_CATEGORIES.entries()) if (rounded[i]! > 0) categories[c] = rounded[i]!;

  const byTool = new Map<string, number>();
  for (const [tally, f] of [[prefix, scale / 4], [trailing, 1 / 4]] as const) {
    for (const [tool, chars] of tally.tools) byTool.set(tool, (byTool.get(tool) ?? 0) + chars * f);
  }
  const definitionTokens = definitions.map((d) => ({ tool: d.tool, tokens: Math.round((d.chars / 4) * scale) }));
  const aged = { tokens: tokensOfChars(aging?.removed ?? 0), items: aging?.count ?? 0 };
  const byTokens = (a: { tokens: number }, b: { tokens: number }) => b.tokens - a.tokens;
  const compactionAt = input.compactionAt != null && input.compactionAt > 0 ? Math.round(input.compactionAt) : null;
  return {
    total_tokens: total,
    estimated_tokens: tokensOfChars(prefix.total + trailing.total),
    source: usage !== null ? "sdk" : "estimate",
    messages: messages.length,
    categories,
    tool_results_by_tool: [...byTool].map(([tool, t]) => ({ tool, tokens: Math.round(t) })).sort(byTokens),
    tool_definitions_by_tool: definitionTokens.sort(byTokens),
    largest: top.map((t) => describeItem(input, t, t.inPrefix ? scale : 1)),
    removed: { aged_offload: aged, smart_trim: null },
    headroom: {
      to_checkpoint: Math.floor(Math.max(0, input.contextWindow) * input.checkpointThreshold) - total,
      to_compaction: compactionAt === null ? null : compactionAt - total,
    },
  };
}

/** One of the five largest items described: role, tool, target (a safe gist), tokens, handle. */
export interface ItemAt {
  index: number;
  chars: number;
  /** measured by the last reply's usage (scaled) rather than estimated */
  inPrefix: boolean;
  /** the message is aged offload's swap */
  aged: boolean;
}

const TARGET_CHARS = 80;
const TARGET_KEYS = ["path", "file_path", "command", "pattern", "url", "query"] as const;

function targetOf(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const o = args as Record<string, unknown>;
  for (const k of TARGET_KEYS) if (typeof o[k] === "string" && o[k]) return safeGist(o[k] as string, TARGET_CHARS);
  return "";
}

const firstHandle = (text: string): string | null => text.match(HANDLE_IN_TEXT_RE)?.[0] ?? null;

function callOf(messages: readonly AgentMessage[], from: number, id: string): Block | undefined {
  for (let i = from - 1; i >= 0; i--) {
    const m = messages[i] as Msg;
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content as Block[]) if (b?.type === "toolCall" && b.id === id) return b;
  }
}

/** Role, tool, target (a redacted gist), tokens and handle; a handle not in the text is asked of `handleOf`. */
function describeItem({ messages, handleOf }: BreakdownInput, at: ItemAt, scale: number): BreakdownItem {
  const m = messages[at.index] as Msg;
  const role = typeof m.role === "string" ? m.role : "unknown";
  const d: BreakdownItem = { role, tool: null, target: "", tokens: Math.round((at.chars / 4) * scale), handle: null };
  if (m.role === "toolResult") {
    const id = typeof m.toolCallId === "string" ? m.toolCallId : "";
    d.tool = typeof m.toolName === "string" ? m.toolName : null;
    d.target = targetOf(id ? callOf(messages, at.index, id)?.arguments : undefined);
    d.handle = firstHandle(contentText(m.content, 4096)) ?? (id && handleOf ? handleOf(id) : null);
  } else if (m.role === "assistant" && Array.isArray(m.content)) {
    // the largest call names the message
    let best: Block | undefined;
    let bestChars = -1;
    for (const b of m.content as Block[]) {
      const chars = b?.type === "toolCall" ? toolCallChars(b) : -1;
      if (chars > bestChars) [best, bestChars] = [b, chars];
    }
    if (best) {
      d.tool = typeof best.name === "string" ? best.name : null;
      d.target = targetOf(best.arguments);
      d.handle = at.aged ? firstHandle(JSON.stringify(best.arguments ?? {})) : null;
    }
  } else if (m.role === "custom") d.target = typeof m.customType === "string" ? safeGist(m.customType, 40) : "";
  else if (m.role === "user") d.target = safeGist(contentText(m.content, 2000), 60);
  return d;
}
