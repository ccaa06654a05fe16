/**
 * Smart trim (seed 003): when a request would exceed `safeLimit = window - reserve - recallCap`,
 * drop low-value messages from what the model is sent (never from the session file), so the
 * host's lossy compaction does not fire (the layers: fixedByRole, trim-select.ts). A trimmed message
 * stays trimmed and the marker line is constant, so the prompt prefix changes only where a new trim
 * happens; a trim goes `headroom` below safeLimit so the next requests need none.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { contentText } from "../messages/read.js";
import { TRIM_CUSTOM_TYPE } from "../messages/custom-types.js";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../inject/markers.js";
import { RECALL_HEADER } from "../archive/segments.js";
import { HistoryView, type Units } from "./history-view.js";
import { RelevanceIndex } from "./relevance-index.js";
import { TrimSelect } from "./trim-select.js";
import { messageTokens } from "../gauge/context-gauge.js";
import { argsShape, type CallBlock, strictCallChars } from "../messages/argument-chars.js";
import { grown } from "../archive/arrays.js";

export const TRIM_MARKER_TEXT =
  "[Earlier messages were trimmed from this request to fit the context window. They are archived: context_search finds them.]";

/** Heap of one message key in a Set or Map (a ~40-char string and its entry). */
export const BYTES_PER_KEY = 160;

/** Messages read for the first time per event-loop turn by `catchUp` (a long history after a restart or an eviction). */
export const CATCH_UP_SLICE = 256;

/** Queries shorter than this skip trimming (nothing to rank against, nothing to recall with). */
export const MIN_QUERY_CHARS = 3;

export interface TrimSettings {
  /** tokens the request may have: window - reserve - recall cap */
  safeLimit: number;
  /** share of safeLimit a trim goes below it */
  headroom: number;
  keepRecent: number;
  marker: boolean;
  /** the reading above which a trim is decided (default safeLimit): lower when the provider's cache is cold */
  trimAbove?: number;
}

/** A trim decided but not taken yet: what it would drop. */
export interface TrimOffer {
  /** index of the first message it drops (the prompt changes from there) */
  first: number;
  tokens: number;
}

export interface TrimRequest {
  messages: AgentMessage[];
  /** tokens the request would have as it stands (the gauge's reading) */
  tokens: number;
  /** the query: the latest real user requests (recall-query.ts) and where they are */
  query: string;
  requestAt: ReadonlySet<number>;
  /** asked before a new trim is taken (the prompt cache's price of it); false: nothing more is trimmed now */
  accept?: (offer: TrimOffer) => boolean;
}

export interface TrimResult {
  /** what to send: the input array itself when nothing is trimmed */
  messages: AgentMessage[];
  /** messages trimmed by this call (the caller archives them) */
  newlyTrimmed: AgentMessage[];
  newTokens: number;
  /** messages left out of this request (sticky ones included) */
  trimmed: number;
  layer2: number;
  layer3: number;
}

const ALWAYS: ReadonlySet<string> = new Set(["system", "compactionSummary", "branchSummary", "custom"]);

/** Layer 1, whatever the request: system messages, summaries, custom messages, a user message carrying our block. */
export function fixedByRole(m: AgentMessage | undefined, carriesOurBlock: boolean): boolean {
  const role = String(m?.role);
  return ALWAYS.has(role) || (role === "user" && carriesOurBlock);
}

const OUR_HEADERS = [RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME, RECALL_HEADER];

export class SmartTrim {
  /** messages read, by key: whether it is a user message carrying one of our blocks */
  private readonly seen = new Map<string, boolean>();
  /** token estimates of what a decision drops, the tool calls' JSON measured off the request path */
  private readonly tokens = new TokenMemo();
  readonly relevance = new RelevanceIndex((key, m) => this.tokens.remember(key, m));
  private readonly view = new HistoryView();
  /** per index of the history: trimmed (sticky), fixed by role; the decision's frontier */
  private readonly select = new TrimSelect();
  /** token estimates of a history read by catchUp, for the decision on that same array */
  private readonly catchUpTokens = new CatchUpTokens();
  /** keys trimmed by the last decision not in `trimmed` yet (added on a later turn, or first thing when read) */
  private pendingSticky: string[] = [];
  /** the last history and reading a trim was decided on (a retry of it trims nothing more) */
  private lastDecision = "";

  /** @param trimmed keys of trimmed messages (sticky), handed on after an eviction (engine/request.ts) */
  constructor(private readonly trimmed = new Set<string>()) {}

  /** About what this SmartTrim holds, in bytes: its weight in the process cache. */
  approxBytes(): number {
    // the keys not in the sticky set yet counted too (weighing must not insert them on the request path)
    return 4_096 + (this.trimmed.size + this.pendingSticky.length) * BYTES_PER_KEY + this.seen.size * (BYTES_PER_KEY + 48) + this.tokens.size * BYTES_PER_MEMO + this.view.approxBytes() + this.relevance.approxBytes();
  }

  /** Whether any message is trimmed (its sticky set must be applied to every later request). */
  get hasTrimmed(): boolean {
    return this.trimmed.size > 0 || this.pendingSticky.length > 0;
  }

  /** Keys of the messages trimmed so far: the sticky set itself, for a caller that keeps it beyond this object (hand it to the next one's constructor). */
  get stickySet(): Set<string> {
    this.settleSticky();
    return this.trimmed;
  }

  /** The last decision's keys into the sticky set, off the request path (~1,500: a third of a restart's decision). */
  private settleSticky(): void {
    if (this.pendingSticky.length === 0) return;
    for (const k of this.pendingSticky) this.trimmed.add(k);
    this.pendingSticky = [];
  }

  /** Whether the next `apply` on `messages` would read more than CATCH_UP_SLICE messages for the first time. */
  needsCatchUp(messages: readonly AgentMessage[]): boolean {
    return messages.length - this.view.known(messages) > CATCH_UP_SLICE;
  }

  /** Reads unknown messages CATCH_UP_SLICE per event-loop turn (the state of one pass), estimates kept for `apply`. */
  async catchUp(messages: readonly AgentMessage[]): Promise<void> {
    let rebuilt = false;
    this.catchUpTokens.begin(messages);
    while (this.needsCatchUp(messages)) {
      const known = this.view.known(messages);
      rebuilt ||= known === 0;
      this.absorb(messages, known + CATCH_UP_SLICE, false);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // the rest (< CATCH_UP_SLICE) in a turn of its own too, so the request's decision reads nothing new
    const known = this.view.known(messages);
    if (known > 0 && known < messages.length) this.absorb(messages, messages.length, false);
    // what the history no longer holds is dropped on a later turn (one pass over the keys, off the request path)
    if (rebuilt) setImmediate(() => this.forgetAbsent([...this.view.keys]));
  }

  /** Reads the messages up to `end` not read yet: keys, units, Layer 1 by role, queued for indexing. */
  private absorb(messages: readonly AgentMessage[], end: number, forget: boolean): { keys: readonly string[]; units: Units } {
    this.settleSticky();
    const { keys, units, from, unitsFrom } = this.view.update(messages, end);
    this.catchUpTokens.read(messages, from, end, (i) => this.tokens.tokensOf(keys[i]!, messages[i]!));
    if (from === 0) {
      this.select.reset();
      if (forget && (this.seen.size > 0 || this.trimmed.size > 0)) this.forgetAbsent(keys); // compaction, branch switch, a handed-over sticky set
    }
    for (let i = from; i < end; i++) {
      const k = keys[i]!;
      if (this.seen.has(k)) continue;
      const m = messages[i]!;
      const c = m?.role === "user" ? (m as { content?: unknown }).content : "";
      const text = typeof c === "string" ? c : contentText(c, 200_000);
      this.seen.set(k, OUR_HEADERS.some((h) => text.includes(h)));
      this.relevance.enqueue(k, m);
    }
    // a unit goes whole: a sticky key trims its other members too (a result never outlives its call)
    this.select.sync(
      end,
      units,
      from,
      unitsFrom,
      (i) => this.trimmed.has(keys[i]!),
      (i) => fixedByRole(messages[i], this.seen.get(keys[i]!) ?? false),
    );
    return { keys, units };
  }

  apply(req: TrimRequest, s: TrimSettings): TrimResult {
    const { messages } = req;
    const { keys, units } = this.absorb(messages, messages.length, true);
    const result: TrimResult = { messages, newlyTrimmed: [], newTokens: 0, trimmed: 0, layer2: 0, layer3: 0 };
    if (req.query.trim().length >= MIN_QUERY_CHARS) this.relevance.warm(req.query);
    const decision = `${messages.length}\0${keys.at(-1)}\0${req.tokens}`;
    const target = Math.floor(s.safeLimit * (1 - s.headroom));
    const above = Math.max(target, s.trimAbove ?? s.safeLimit);
    if (req.tokens > above && req.query.trim().length >= MIN_QUERY_CHARS && decision !== this.lastDecision) {
      this.lastDecision = decision;
      const scoreOf = this.relevance.scorer(req.query);
      const plan = this.select.decide({
        messages,
        units,
        keepRecent: s.keepRecent,
        requestAt: req.requestAt,
        tokensAt: (i) => this.catchUpTokens.get(messages, i) ?? this.tokens.tokensOf(keys[i]!, messages[i]!),
        scoreAt: (i) => scoreOf(keys[i]!),
        need: req.tokens - target,
      });
      if (plan.drop.length > 0 && req.accept && !req.accept({ first: plan.drop[0]!, tokens: plan.tokens })) {
        this.select.undo(plan.drop, units);
        plan.drop = [];
      }
      for (const i of plan.drop) {
        this.pendingSticky.push(keys[i]!);
        result.newlyTrimmed.push(messages[i]!);
      }
      if (plan.drop.length > 0) {
        setImmediate(() => this.settleSticky());
        ({ tokens: result.newTokens, layer2: result.layer2, layer3: result.layer3 } = plan);
      }
    }
    this.catchUpTokens.begin();
    if (this.select.count === 0) return result;
    const out: AgentMessage[] = [];
    for (let i = 0; i < messages.length; i++) {
      if (!this.select.isTrimmed(i)) out.push(messages[i]!);
      else if (result.trimmed++ === 0 && s.marker) out.push(markerAt(messages[i]!));
    }
    result.messages = out;
    return result;
  }

  /** Drops what the history no longer holds (after a compaction): O(remembered), only then. */
  private forgetAbsent(keys: readonly string[]): void {
    this.settleSticky();
    const live = new Set(keys);
    const gone: string[] = [];
    for (const k of this.seen.keys()) if (!live.has(k)) gone.push(k);
    for (const k of gone) this.seen.delete(k);
    this.tokens.forget(gone);
    for (const k of this.trimmed) if (!live.has(k)) this.trimmed.delete(k);
    this.relevance.index.remove(gone);
  }
}

/** The marker line: constant text, the time of the first trimmed message (byte-stable while that one stays first). */
function markerAt(first: AgentMessage): AgentMessage {
  const t = (first as { timestamp?: unknown }).timestamp;
  return {
    role: "custom",
    customType: TRIM_CUSTOM_TYPE,
    content: TRIM_MARKER_TEXT,
    display: false,
    timestamp: typeof t === "number" ? t : 0,
  } as AgentMessage;
}

/** Heap per remembered message (its key's entry and the numbers). */
export const BYTES_PER_MEMO = 120;

/** Per message key, its tool calls' shape (argsShape of each) and the chars pi counts for them (name + JSON). */
export class TokenMemo {
  private readonly byKey = new Map<string, { shape: number; chars: number }>();

  get size(): number {
    return this.byKey.size;
  }

  /** Measures a message's tool calls now (off the request path) for later decisions; undefined: pi's count. */
  remember(key: string, m: AgentMessage): number | undefined {
    const content = (m as { content?: unknown }).content;
    if (m?.role !== "assistant" || !Array.isArray(content)) return undefined;
    let shape = NaN; // none, or a call without a name or id
    for (const b of content as CallBlock[]) {
      if (b?.type !== "toolCall") continue;
      const named = typeof b.name === "string" && typeof b.id === "string";
      shape = named ? (Math.imul(Number.isNaN(shape) ? 17 : shape, 31) + argsShape(b)) | 0 : NaN;
      if (!named) break;
    }
    const known = this.byKey.get(key);
    if (known?.shape === shape) return known.chars;
    this.byKey.delete(key);
    if (Number.isNaN(shape)) return undefined;
    let chars = 0;
    for (const b of content as CallBlock[]) {
      const n = b?.type === "toolCall" ? strictCallChars(b) : 0;
      if (n === null) return undefined; // not countable: pi's own estimate
      chars += n;
    }
    this.byKey.set(key, { shape, chars });
    return chars;
  }

  /** estimateTokens(m), the tool calls' JSON length reused while their shape holds. */
  tokensOf(key: string, m: AgentMessage): number {
    return messageTokens(m, this.remember(key, m));
  }

  forget(keys: Iterable<string>): void {
    for (const k of keys) this.byKey.delete(k);
  }
}

/**
 * Token estimates of a long history read in slices (SmartTrim.catchUp), per index, for the request
 * that reads it: its decision sums a typed array instead of reading ~1,500 dropped messages on the
 * request path (memory latency: 7x their in-cache cost). Released after that decision.
 */
export class CatchUpTokens {
  private of: readonly AgentMessage[] | null = null;
  /** the indexes [from, to) of `of` estimated */
  private from = 0;
  private to = 0;
  private values = new Float64Array(64);

  /** Estimates will be kept for `messages` (a catch-up starts); none: drops the array after its decision. */
  begin(messages: readonly AgentMessage[] | null = null): void {
    this.of = messages;
    this.from = 0;
    this.to = 0;
  }

  /** Estimates the messages [from, end) when `messages` is the array being caught up. */
  read(messages: readonly AgentMessage[], from: number, end: number, tokensAt: (i: number) => number): void {
    if (messages !== this.of || end <= from) return;
    if (from < this.from || from > this.to) this.from = from; // not contiguous: keep only this run
    this.values = grown(this.values, end, this.to);
    for (let i = from; i < end; i++) this.values[i] = tokensAt(i);
    this.to = end;
  }

  /** The estimate of index `i` of `messages`, read during this catch-up; undefined: not read. */
  get(messages: readonly AgentMessage[], i: number): number | undefined {
    return messages === this.of && i >= this.from && i < this.to ? this.values[i] : undefined;
  }
}
