/**
 * The caching models a session is billed under, by name. "anthropic-pi" and
 * "anthropic-openclaw" are the documented breakpoint rules with each host's placement
 * (placement.ts); "-1h" the same with 1-hour entries (pi-ai: `cacheRetention: "long"`).
 */
import { AnthropicBreakpointCache } from "../../agents/prompt-cost/anthropic-breakpoints.js";
import { type HostPlacement } from "./placement.js";
import { AnthropicAnyPrefixCache, NoCache, OpenAIPrefixCache } from "../../agents/prompt-cost/prefix-cache.js";
import { ANTHROPIC_TTL_1H_MS, CLAUDE_SONNET_4_5, GPT_5, type Prices } from "../../agents/prompt-cost/prices.js";
import { type CacheModel, SessionCost, type WriteRate } from "./session-cost.js";

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
  "anthropic-pi-1h": { placement: "pi", make: () => new AnthropicBreakpointCache({ ttlMs: ANTHROPIC_TTL_1H_MS }), prices: CLAUDE_SONNET_4_5, writeRate: "1h" },
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
