/** The replay's cost lines: each caching model's bill, and its ratio against the host alone in the same run. */
import type { CostReport } from "./cost-probe.js";

export interface CostRatio {
  /** dollars of this run / dollars of the host-alone run, same model */
  dollars: number;
  inputTokens: number;
}

const fmt = (n: number) => n.toLocaleString("en-US");
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 1000) / 1000 : 0);

export function costRatios(run: CostReport, host: CostReport): Record<string, CostRatio> {
  const out: Record<string, CostRatio> = {};
  for (const [name, t] of Object.entries(run.models)) {
    const h = host.models[name];
    if (!h) continue;
    const input = (x: typeof t) => x.readTokens + x.writeTokens + x.uncachedTokens + x.summarizerInputTokens;
    out[name] = { dollars: ratio(t.dollars, h.dollars), inputTokens: ratio(input(t), input(h)) };
  }
  return out;
}

export function formatCost(cost: CostReport, vsHost?: Record<string, CostRatio>): string {
  const lines = [`  cost (${cost.requests} requests, clock: ${cost.clock === "transcript" ? "transcript timestamps" : "none, all inside the TTL"}):`];
  for (const [name, t] of Object.entries(cost.models)) {
    const breaks = Object.entries(t.breaks).filter(([, n]) => n > 0).map(([c, n]) => `${c} ${n}`).join(", ") || "none";
    const r = vsHost?.[name];
    lines.push(
      `    ${name.padEnd(20)} $${t.dollars.toFixed(2)} (${t.priced})${r ? `, ${r.dollars}x host alone` : ""}; read ${fmt(t.readTokens)}, write ${fmt(t.writeTokens)}, uncached ${fmt(t.uncachedTokens)}, output ${fmt(t.outputTokens)}, summarizer ${fmt(t.summarizerInputTokens)}; reuse ${Math.round(t.reuse * 100)}%; breaks: ${breaks}`,
    );
  }
  return lines.join("\n");
}
