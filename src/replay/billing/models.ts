/**
 * The caching models a session is billed under, by name. "anthropic-pi" and
 * "anthropic-openclaw" are the documented breakpoint rules with each host's placement
 * (placement.ts); "-1h" the same with 1-hour entries (pi-ai: `cacheRetention: "long"`).
 */
import { type HostPlacement } from "./placement.js";
import {
  AnthropicBreakpointCache,
  ANTHROPIC_MIN_CACHEABLE_TOKENS,
  OpenAIPrefixCache,
  PrefixCache,
  PreviousRequest,
  type CostRequest,
  type RequestBill,
} from "../../agents/prompt-cost/prefix-cache.js";
import { FIVE_MINUTES_MS, ONE_HOUR_MS } from "../../agents/cache/cache-rules.js";
import { CLAUDE_SONNET_4_5, GPT_5, type Prices } from "./prices.js";
import { type CacheModel, SessionCost, type WriteRate } from "./session-cost.js";

/** Anthropic, any shared prefix: an upper bound on what breakpoints could save; writes at 1.25×. */
export class AnthropicAnyPrefixCache extends PrefixCache {
  protected readonly chargesWrites = true;
  constructor(ttlMs = FIVE_MINUTES_MS) {
    super(ttlMs);
  }
  protected readable(shared: number): number {
    return shared >= ANTHROPIC_MIN_CACHEABLE_TOKENS ? shared : 0;
  }
}

/** No cache: every input token at the base rate. */
export class NoCache {
  readonly previous = new PreviousRequest();
  bill(req: CostRequest): RequestBill {
    const total = req.blocks.reduce((n, b) => n + b.tokens, 0);
    return { read: 0, write: 0, uncached: total, output: req.outputTokens, previousCached: 0, sharedPrefix: 0, expired: false, divergedAt: 0 };
  }
}

export const COST_MODELS = ["anthropic-pi", "anthropic-pi-1h", "anthropic-openclaw", "anthropic-any-prefix", "openai", "none"] as const;
export type CostModelName = (typeof COST_MODELS)[number];

export interface CostModelSpec {
  /** whose breakpoints the request carries (none: the model ignores them) */
  placement: HostPlacement | null;
  make: () => CacheModel;
  prices: Prices;
  writeRate: WriteRate;
}

export const COST_MODEL_SPECS: Record<CostModelName, CostModelSpec> = {
  "anthropic-pi": { placement: "pi", make: () => new AnthropicBreakpointCache(), prices: CLAUDE_SONNET_4_5, writeRate: "5m" },
  "anthropic-pi-1h": { placement: "pi", make: () => new AnthropicBreakpointCache(ONE_HOUR_MS), prices: CLAUDE_SONNET_4_5, writeRate: "1h" },
  "anthropic-openclaw": { placement: "openclaw", make: () => new AnthropicBreakpointCache(), prices: CLAUDE_SONNET_4_5, writeRate: "5m" },
  "anthropic-any-prefix": { placement: null, make: () => new AnthropicAnyPrefixCache(), prices: CLAUDE_SONNET_4_5, writeRate: "5m" },
  openai: { placement: null, make: () => new OpenAIPrefixCache(), prices: GPT_5, writeRate: "5m" },
  // billed at Claude's base rates so that its ratios compare with the Anthropic columns
  none: { placement: null, make: () => new NoCache(), prices: CLAUDE_SONNET_4_5, writeRate: "5m" },
};

export function sessionCost(name: CostModelName): SessionCost {
  const s = COST_MODEL_SPECS[name];
  return new SessionCost(name, s.make(), s.prices, s.writeRate);
}
