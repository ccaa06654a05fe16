/** Every caching model billing the same session side by side: one layout per request, placed per host. */
import { COST_MODEL_SPECS, COST_MODELS, type CostModelName, sessionCost } from "./models.js";
import { type PromptLayout, placeBreakpoints } from "./placement.js";
import type { CostTotals, SessionCost, SummarizerCall } from "./session-cost.js";

export class CostLedger {
  private readonly sessions: Array<[CostModelName, SessionCost]>;

  constructor(models: readonly CostModelName[] = COST_MODELS) {
    this.sessions = models.map((m) => [m, sessionCost(m)]);
  }

  addRequest(layout: PromptLayout, at: number, outputTokens: number): void {
    const placed = { pi: placeBreakpoints(layout, "pi"), openclaw: placeBreakpoints(layout, "openclaw") };
    for (const [name, s] of this.sessions) {
      const p = placed[COST_MODEL_SPECS[name].placement ?? "pi"];
      s.addRequest({ blocks: p.blocks, breakpoints: COST_MODEL_SPECS[name].placement ? p.breakpoints : [], at, outputTokens });
    }
  }

  addSummarizer(call: SummarizerCall): void {
    for (const [, s] of this.sessions) s.addSummarizer(call);
  }

  session(name: CostModelName): SessionCost | undefined {
    return this.sessions.find(([n]) => n === name)?.[1];
  }

  totals(): Record<string, CostTotals> {
    return Object.fromEntries(this.sessions.map(([n, s]) => [n, s.totals()]));
  }
}
