/**
 * The context breakdown (issue 27), lazily from a request already sent, lengths only. The last
 * reply's usage is spread over the prefix's categories by their estimate, so they sum to the gauge's
 * total (docs/cli.md#breakdown); when the host hides system prompt and tools, the rest is `unattributed`.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { BREAKDOWN_CATEGORIES, type BreakdownCategory, type BreakdownItem, type ContextBreakdown } from "../checkpoint/schema.js";
import { tokensOfChars } from "../text/token-estimate.js";
import type { CallSizes, ReplyTable } from "./call-sizes.js";
import { measureMessage, Tally } from "./measure.js";
import { describeItem, type ItemAt } from "./items.js";
import { agedKey, messageKey } from "../messages/message-key.js";
import { lastUsableReply, replyTokens } from "../gauge/context-gauge.js";

/** A tool as the request declares it (pi's ToolInfo, pi-ai's Tool). */
export interface ToolSchema {
  name: string;
  description?: string;
  parameters?: unknown;
}

export interface AgedSet {
  has(key: string): boolean;
}

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
/** Misses (the gauge line, a trim's stand-in) scanned for before a Set is built. */
const SCANNED_MISSES = 16;

/** Which messages are aging's swaps: `sent` walked alongside (later steps never reorder). */
class AgedLookup {
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

/** Measures up to `measured` into `prefix`, the rest into `trailing`; the five largest, largest first. */
function measurePass(messages: readonly AgentMessage[], aged: AgedLookup, measured: number, prefix: Tally, trailing: Tally, calls: ReplyTable | undefined): ItemAt[] {
  const top: ItemAt[] = [];
  let smallest = 0;
  calls?.begin();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const isAged = aged.isAged(m);
    const chars = measureMessage(m, isAged, i <= measured ? prefix : trailing, calls);
    if (chars <= 0 || (top.length === TOP && chars <= smallest)) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]!.chars < chars) at--;
    top.splice(at, 0, { index: i, chars, inPrefix: i <= measured, aged: isAged });
    if (top.length > TOP) top.pop();
    smallest = top[top.length - 1]!.chars;
  }
  calls?.end();
  return top;
}

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
  const n = values.length;
  const floors = new Float64Array(n);
  const order: number[] = [];
  let left = total;
  for (let i = 0; i < n; i++) {
    floors[i] = Math.floor(values[i]!);
    left -= floors[i]!;
    order.push(i);
  }
  const rest = (i: number) => values[i]! - floors[i]!;
  order.sort((a, b) => rest(b) - rest(a));
  for (let k = 0; k < n && left > 0; k++, left--) floors[order[k]!]! += 1;
  return floors;
}

export function computeBreakdown(input: BreakdownInput): ContextBreakdown {
  const { messages, host } = input;
  const prefix = new Tally();
  const trailing = new Tally();

  // what aging took out, and what it newly took out since the measured reply (whose usage counts it)
  let removedChars = 0;
  const scratch = new Tally();
  const aging = input.aging && input.aging.unaged.length === input.aging.sent.length ? input.aging : null;
  const measured = lastUsableReply(messages);
  const endKey = measured > 0 ? messageKey(messages[measured - 1]) : null;
  const previous = (endKey !== null ? input.agedBefore?.(endKey) : undefined) ?? input.previousAged ?? null;
  const measuredMessage = measured >= 0 ? messages[measured] : undefined;
  const measuredInSent = measuredMessage && aging ? aging.sent.lastIndexOf(measuredMessage) : -1;
  let newlyAgedChars = 0;
  let agedCount = 0;
  const flags = new Uint8Array(aging ? aging.sent.length : 0);
  if (aging) {
    const { sent, unaged } = aging;
    input.calls?.aged.begin();
    for (let i = 0; i < sent.length; i++) {
      const stub = sent[i]!;
      const whole = unaged[i]!;
      if (stub === whole) continue;
      flags[i] = 1;
      agedCount++;
      const cut = measureMessage(whole, false, scratch, input.calls?.aged) - measureMessage(stub, true, scratch);
      removedChars += Math.max(0, cut);
      if (i < measuredInSent && previous !== null && !previous.has(agedKey(whole) ?? "")) newlyAgedChars += Math.max(0, cut);
    }
    input.calls?.aged.end();
  }

  if (host.systemPrompt !== null) prefix.add("system_prompt", host.systemPrompt.length);
  const definitions: Array<{ tool: string; chars: number }> = [];
  for (const t of host.tools ?? []) {
    const chars = schemaChars(t);
    prefix.add("tool_definitions", chars);
    definitions.push({ tool: t.name, chars });
  }

  const top = measurePass(messages, new AgedLookup(aging?.sent ?? [], flags, agedCount), measured, prefix, trailing, input.calls?.main);

  const hostKnown = host.systemPrompt !== null && host.tools !== null;
  const prefixTokens = prefix.total / 4;
  let scale = 1;
  let unattributed = 0;
  const usage = measuredMessage && !((input.newlyTrimmedTokens ?? 0) > 0) ? replyTokens(measuredMessage) : null;
  if (usage !== null) {
    const measuredPrefix = Math.max(0, usage - tokensOfChars(newlyAgedChars));
    if (hostKnown || measuredPrefix < prefixTokens) scale = prefixTokens > 0 ? measuredPrefix / prefixTokens : 1;
    else unattributed = measuredPrefix - prefixTokens;
  }
  const floats = new Float64Array(BREAKDOWN_CATEGORIES.length);
  let sum = 0;
  BREAKDOWN_CATEGORIES.forEach((c, i) => {
    floats[i] = c === "unattributed" ? unattributed : (prefix.get(c) / 4) * scale + trailing.get(c) / 4;
    sum += floats[i]!;
  });
  const total = Math.round(sum);
  const rounded = roundToSum(floats, total);
  const categories: Partial<Record<BreakdownCategory, number>> = {};
  BREAKDOWN_CATEGORIES.forEach((c, i) => {
    if (rounded[i]! > 0) categories[c] = rounded[i]!;
  });

  const byTool = new Map<string, number>();
  prefix.addToolsTo(byTool, scale / 4);
  trailing.addToolsTo(byTool, 1 / 4);
  const largest: BreakdownItem[] = top.map((t) => describeItem(messages, t, input.handleOf, t.inPrefix ? scale : 1, messageKey(messages[t.index])));
  const window = Math.max(0, input.contextWindow);
  return {
    total_tokens: total,
    estimated_tokens: tokensOfChars(prefix.total + trailing.total),
    source: usage !== null ? "sdk" : "estimate",
    messages: messages.length,
    categories,
    tool_results_by_tool: [...byTool].map(([tool, t]) => ({ tool, tokens: Math.round(t) })).sort((a, b) => b.tokens - a.tokens),
    tool_definitions_by_tool: definitions.map((d) => ({ tool: d.tool, tokens: Math.round((d.chars / 4) * scale) })).sort((a, b) => b.tokens - a.tokens),
    largest,
    removed: { aged_offload: { tokens: tokensOfChars(removedChars), items: agedCount }, smart_trim: null },
    headroom: {
      to_checkpoint: Math.floor(window * input.checkpointThreshold) - total,
      to_compaction: input.compactionAt != null && input.compactionAt > 0 ? Math.round(input.compactionAt) - total : null,
    },
  };
}
