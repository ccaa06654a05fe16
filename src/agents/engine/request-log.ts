/**
 * The latest request an engine prepared, kept by reference: its breakdown is computed only when
 * asked, the gauge phrase after the request has gone out (the request path never pays).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ContextBreakdown } from "../checkpoint/schema.js";
import { agedKeys, type BreakdownInput, computeBreakdown, type HostParts } from "../breakdown/compute.js";
import { messageKey } from "../messages/message-key.js";
import { dominantPhrase } from "../breakdown/render.js";
import { CallSizes } from "../breakdown/call-sizes.js";
import { sessionOf, sessionRegistry } from "./cache-budget.js";
import { AgedHistory } from "./aged-history.js";
import { createHash } from "node:crypto";
import type { BlockTag, CostBlock, CostRequest } from "../prompt-cost/prefix-cache.js";
import { GAUGE_CUSTOM_TYPE, RECALL_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE, TRIM_CUSTOM_TYPE, customTypeOf } from "../messages/custom-types.js";
import { STASHED_MARKER } from "../artifacts/preview.js";
import { AGED_ARG_MARKER } from "../artifacts/offload.js";
import { estimateReuse, type ReuseEstimate, type ReuseRules } from "../prompt-cost/reuse.js";

// each request's number in its key's AgedHistory: a breakdown subtracts what aged since the measured reply
const seqOf = new WeakMap<RequestRecord, number>();

/** What the host adds to a request, read lazily (a ctx is never kept: the shell captures values). */
export interface RequestHost {
  systemPrompt?: string | null;
  /** the tools the request declares; called only when a breakdown is computed */
  tools?: () => HostParts["tools"];
  /** tokens at which the host compacts (pi: window − reserveTokens); null: unknown */
  compactionAt?: () => number | null;
  /** the handle of a result stored for aging but still shown whole */
  handleOf?: (toolCallId: string) => string | null;
}

export interface RequestRecord {
  unaged: readonly AgentMessage[];
  sent: readonly AgentMessage[];
  /** what went to the model (gauge line and recall block included: see RequestLog.complete) */
  final: readonly AgentMessage[];
  host: RequestHost;
  tokens: number;
  contextWindow: number;
  /** tokens smart trim left out with this request for the first time (the last reply's usage still counted them) */
  trimmedTokens?: number;
}

type BreakdownSettings = Pick<BreakdownInput, "contextWindow" | "checkpointThreshold">;

/** Below the gauge threshold by this much, the phrase is prepared so the first gauge line has it. */
const PREPARE_BELOW = 0.05;
/** The phrase is recomputed when the reading moved by this fraction of the window. */
const REFRESH_DELTA = 0.01;

export class RequestLog {
  /** `key`: `stateDir\0sessionKey`, whose Session keeps what outlives this log (call sizes, aged keys, phrase) */
  constructor(private readonly key: string) {
    this.phrase = sessionOf(key).breakdown.phrase ?? null;
  }

  /** The key's tool call sizes, shared with its other engines (a cache: each size is checked where used). */
  private calls(): CallSizes {
    return (sessionOf(this.key).breakdown.calls ??= new CallSizes());
  }

  private history(): AgedHistory {
    return (sessionOf(this.key).breakdown.aged ??= new AgedHistory());
  }

  /** the latest request prepared (null: none, or let go) */
  latest: RequestRecord | null = null;
  private cached: { record: RequestRecord; breakdown: ContextBreakdown } | null = null;
  private phrase: { text: string; tokens: number } | null = null;
  private phraseScheduled = false;
  private warmScheduled = false;

  /** The request just prepared becomes the latest; the one before is let go (a second history), its aged keys kept. */
  record(r: RequestRecord): void {
    if (this.latest) this.rememberAgedOf(this.latest);
    this.latest = r;
    seqOf.set(r, ++this.history().seq);
    if (this.warmScheduled) return;
    this.warmScheduled = true;
    setImmediate(() => {
      this.warmScheduled = false;
      this.warmCalls();
    });
  }

  /** What a recorded request finally sent, when a step after the record (smart trim, recall) changed it. */
  complete(r: RequestRecord, final: readonly AgentMessage[], tokens?: number, trimmedTokens?: number): void {
    r.final = final;
    if (tokens !== undefined) r.tokens = tokens;
    if (trimmedTokens !== undefined) r.trimmedTokens = trimmedTokens;
    if (this.cached?.record === r) this.cached = null;
  }

  /** Off the request path, sizes the latest request's new tool calls (a breakdown's main cost). Returns how many. */
  warmCalls(): number {
    const r = this.latest;
    if (!r) return 0;
    try {
      // and what it aged, for the next request's breakdown (one pointer compare per message)
      this.rememberAgedOf(r);
      this.fingerprint(r);
      const sized = this.calls().main.append(r.unaged);
      if (sized > 0) sessionRegistry().reweigh(this.key);
      return sized;
    } catch {
      return 0; // a report's cache: never breaks anything
    }
  }

  /** the latest two requests as the cost model sees them (hashes and sizes, no messages held) */
  private prints: Array<{ record: RequestRecord; print: CostRequest }> = [];

  /** Off the request path: hashes the messages this request added (the others are memoized per object). */
  private fingerprint(r: RequestRecord): void {
    if (this.prints.at(-1)?.record === r) return;
    try {
      this.prints = [...this.prints.slice(-1), { record: r, print: requestFingerprint(r.final, r.host.systemPrompt, Date.now()) }];
    } catch {
      this.prints = [];
    }
  }

  /** The latest request's estimated cache reuse after the one before (prompt-cost/reuse.ts); null: none. */
  cacheReuse(rules: ReuseRules = "anthropic"): ReuseEstimate | null {
    const r = this.latest;
    if (!r) return null;
    try {
      this.fingerprint(r);
      const [before, latest] = this.prints.length === 2 ? this.prints : [undefined, this.prints[0]];
      return latest ? estimateReuse(before?.print ?? null, latest.print, rules) : null;
    } catch {
      return null;
    }
  }

  /** Never throws: the aged keys are a report's cache. */
  private rememberAgedOf(r: RequestRecord): void {
    try {
      const h = this.history();
      const seq = seqOf.get(r) ?? 0;
      if (seq > 0 && !h.recent.some((e) => e.seq === seq)) h.remember(seq, messageKey(r.unaged.at(-1)), agedKeys(r));
      sessionRegistry().reweigh(this.key);
    } catch {
      // a breakdown then reads the request before as unknown, as before any request
    }
  }

  /** Lets go of the latest request (a whole history), its aged keys remembered first. True when one was held. */
  forget(): boolean {
    const r = this.latest;
    if (!r) return false;
    this.rememberAgedOf(r);
    this.latest = null;
    this.cached = null;
    return true;
  }

  /** The breakdown of the latest request (cached per request); null before any request or on failure. */
  breakdown(settings: BreakdownSettings, record: RequestRecord | null = this.latest): ContextBreakdown | null {
    if (!record) return null;
    if (this.cached?.record === record) return this.cached.breakdown;
    try {
      const host = record.host;
      const s = seqOf.get(record) ?? 0;
      const h = this.history();
      // requests before this one, newest first: the measured reply answered one of them
      const before = h.recent.filter((e) => e.seq < s).reverse();
      const previousAged = before[0]?.seq === s - 1 ? h.keysOf(before[0]) : null;
      const breakdown = computeBreakdown({
        messages: record.final,
        aging: { unaged: record.unaged, sent: record.sent },
        newlyTrimmedTokens: record.trimmedTokens ?? 0,
        previousAged,
        agedBefore: (end) => {
          const e = before.find((x) => x.end === end);
          return e ? h.keysOf(e) : undefined;
        },
        host: { systemPrompt: host.systemPrompt ?? null, tools: host.tools?.() ?? null },
        contextWindow: settings.contextWindow || record.contextWindow,
        checkpointThreshold: settings.checkpointThreshold,
        compactionAt: host.compactionAt?.() ?? null,
        handleOf: host.handleOf,
        calls: this.calls(),
      });
      sessionRegistry().reweigh(this.key);
      this.cached = { record, breakdown };
      return breakdown;
    } catch {
      return null; // a breakdown is a report: it never breaks a checkpoint or a request
    }
  }

  /** The gauge line's composition phrase ("" until one was computed). */
  get gaugePhrase(): string {
    return this.phrase?.text ?? "";
  }

  /** After a request: refresh the phrase off the request path when it is (nearly) due and stale. */
  refreshGaugePhrase(utilization: number, gaugeThreshold: number, settings: BreakdownSettings): void {
    const r = this.latest;
    if (!r || this.phraseScheduled || utilization < gaugeThreshold - PREPARE_BELOW) return;
    const window = r.contextWindow || settings.contextWindow;
    if (this.phrase && window > 0 && Math.abs(r.tokens - this.phrase.tokens) < window * REFRESH_DELTA) return;
    this.phraseScheduled = true;
    setImmediate(() => {
      this.phraseScheduled = false;
      const b = this.breakdown(settings, r);
      if (!b) return;
      this.phrase = { text: dominantPhrase(b), tokens: r.tokens };
      sessionOf(this.key).breakdown.phrase = this.phrase;
      sessionRegistry().reweigh(this.key);
    });
  }
}

// --- a request as the cost model sees it (prompt-cost/prefix-cache.ts) -----------------------------
// One block per message: a hash of what the provider gets of it, its size, and a tag on our own
// messages. Memoized per message object (a host that keeps them, pi, pays for new messages only).
const memo = new WeakMap<object, { content: unknown; block: CostBlock }>();

const CUSTOM_TAGS: Record<string, BlockTag> = { [GAUGE_CUSTOM_TYPE]: "gauge", [RESTORE_CUSTOM_TYPE]: "restore", [RECALL_CUSTOM_TYPE]: "recall", [TRIM_CUSTOM_TYPE]: "trim" };

function tagOf(m: AgentMessage, json: string): BlockTag | undefined {
  const custom = customTypeOf(m);
  if (custom) return CUSTOM_TAGS[custom];
  if (m.role === "compactionSummary") return "compaction";
  const marker = m.role === "toolResult" ? STASHED_MARKER : m.role === "assistant" ? AGED_ARG_MARKER : null;
  return marker && json.includes(marker) ? "aged" : undefined;
}

function textBlock(text: string, tag?: BlockTag): CostBlock {
  const hash = createHash("sha1").update(text).digest("base64").slice(0, 16);
  return { hash, tokens: Math.ceil(text.length / 4), ...(tag ? { tag } : {}) };
}

function blockOf(m: AgentMessage): CostBlock {
  const content = (m as { content?: unknown }).content;
  const hit = memo.get(m);
  if (hit && hit.content === content) return hit.block;
  const json = JSON.stringify([m.role, (m as { toolCallId?: string }).toolCallId ?? "", (m as { summary?: string }).summary ?? "", content ?? ""]);
  const block = textBlock(json, tagOf(m, json));
  memo.set(m, { content, block });
  return block;
}

/** pi-ai's placement at message granularity: the system prompt, and the last message unless it is the model's. */
function requestFingerprint(messages: readonly AgentMessage[], systemPrompt: string | null | undefined, at: number): CostRequest {
  const blocks = [textBlock(systemPrompt ?? ""), ...messages.map(blockOf)];
  const last = messages.at(-1);
  const breakpoints = last && last.role !== "assistant" ? [0, blocks.length - 1] : [0];
  return { blocks, breakpoints, at, outputTokens: 0 };
}
