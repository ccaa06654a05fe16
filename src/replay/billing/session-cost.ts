/**
 * One session billed under one caching model: every chat request in order, the host's
 * summarizer calls (a prompt of their own, billed as plain input), totals and breaks by cause.
 */
import { type BreakCause, breakCause } from "../../agents/prompt-cost/reuse.js";
import type { Prices } from "./prices.js";
import { BLOCK_TAGS, type CostRequest, type RequestBill } from "../../agents/prompt-cost/prefix-cache.js";
import type { PreviousRequest } from "../../agents/prompt-cost/prefix-cache.js";

/** A summarizer call (the host's LLM compaction): a prompt of its own, billed uncached. */
export interface SummarizerCall {
  inputTokens: number;
  outputTokens: number;
}

export interface CacheModel {
  readonly previous: PreviousRequest;
  bill(req: CostRequest): RequestBill;
}

export interface CostTotals {
  model: string;
  /** the list prices billed (prices.ts) */
  priced: string;
  requests: number;
  readTokens: number;
  writeTokens: number;
  uncachedTokens: number;
  outputTokens: number;
  summarizerCalls: number;
  summarizerInputTokens: number;
  summarizerOutputTokens: number;
  /** USD at list price: chat input + output + summarizer */
  dollars: number;
  /** share of all chat input tokens read from cache */
  reuse: number;
  /** requests that reused less than the previous one left cached, by cause */
  breaks: Record<BreakCause, number>;
  /** tokens those requests could have read and did not, by cause */
  breakTokens: Record<BreakCause, number>;
}

export type WriteRate = "5m" | "1h";

const BREAK_CAUSES: readonly BreakCause[] = [...BLOCK_TAGS, "ttl", "lookback", "other"];
const zeroes = (): Record<BreakCause, number> => Object.fromEntries(BREAK_CAUSES.map((c) => [c, 0])) as Record<BreakCause, number>;

export class SessionCost {
  private readonly t: CostTotals;
  private lastBill: (RequestBill & { cause: BreakCause | null }) | null = null;

  constructor(
    model: string,
    private readonly cache: CacheModel,
    private readonly prices: Prices,
    private readonly writeRate: WriteRate = "5m",
  ) {
    this.t = {
      model,
      priced: prices.model,
      requests: 0,
      readTokens: 0,
      writeTokens: 0,
      uncachedTokens: 0,
      outputTokens: 0,
      summarizerCalls: 0,
      summarizerInputTokens: 0,
      summarizerOutputTokens: 0,
      dollars: 0,
      reuse: 0,
      breaks: zeroes(),
      breakTokens: zeroes(),
    };
  }

  addRequest(req: CostRequest): RequestBill & { cause: BreakCause | null } {
    const previous = this.cache.previous.previousBlocks;
    const bill = this.cache.bill(req);
    const cause = breakCause(bill, previous, req.blocks);
    const t = this.t;
    t.requests++;
    t.readTokens += bill.read;
    t.writeTokens += bill.write;
    t.uncachedTokens += bill.uncached;
    t.outputTokens += bill.output;
    if (cause) {
      t.breaks[cause]++;
      t.breakTokens[cause] += Math.max(0, Math.min(bill.previousCached, bill.read + bill.write + bill.uncached) - bill.read);
    }
    this.lastBill = { ...bill, cause };
    return this.lastBill;
  }

  addSummarizer(call: SummarizerCall): void {
    this.t.summarizerCalls++;
    this.t.summarizerInputTokens += call.inputTokens;
    this.t.summarizerOutputTokens += call.outputTokens;
  }

  get last(): (RequestBill & { cause: BreakCause | null }) | null {
    return this.lastBill;
  }

  totals(): CostTotals {
    const t = this.t;
    const p = this.prices;
    const write = this.writeRate === "1h" ? p.write1h : p.write5m;
    const dollars =
      (t.readTokens * p.read + t.writeTokens * write + t.uncachedTokens * p.input + t.outputTokens * p.output + t.summarizerInputTokens * p.input + t.summarizerOutputTokens * p.output) / 1e6;
    const input = t.readTokens + t.writeTokens + t.uncachedTokens;
    return { ...t, breaks: { ...t.breaks }, breakTokens: { ...t.breakTokens }, dollars: Math.round(dollars * 1e6) / 1e6, reuse: input ? Math.round((t.readTokens / input) * 1e4) / 1e4 : 0 };
  }
}
