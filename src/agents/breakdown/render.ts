/** A breakdown as text (gauge phrase, bar, table); no SDK import: the CLI renders recorded ones. */
import { BREAKDOWN_CATEGORIES, type BreakdownCategory, type ContextBreakdown } from "../checkpoint/schema.js";
import { formatTokenCount } from "../gauge/gauge-line.js";
import { safeGist } from "../text/gist.js";

/** Each category's label, and its letter in the bar. */
const CATEGORIES: Record<BreakdownCategory, readonly [label: string, bar: string]> = {
  system_prompt: ["system prompt", "S"],
  tool_definitions: ["tool definitions", "D"],
  user: ["user messages", "U"],
  assistant_text: ["assistant text", "A"],
  thinking: ["thinking", "T"],
  tool_calls: ["tool calls", "C"],
  tool_results: ["tool results", "R"],
  images: ["images", "I"],
  summaries: ["compaction summaries", "Y"],
  gauge: ["gauge line", "g"],
  restore: ["restore block", "r"],
  recall: ["recall block", "c"],
  handles: ["stored-output handles", "h"],
  other: ["other", "o"],
  unattributed: ["unattributed", "?"],
};

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);
/** Tool names come from the host: made safe and short. */
const toolName = (s: string) => safeGist(s, 24) || "(unnamed)";

function sorted(b: ContextBreakdown): Array<[BreakdownCategory, number]> {
  return BREAKDOWN_CATEGORIES.map((c) => [c, b.categories[c] ?? 0] as [BreakdownCategory, number])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** What dominates, for the gauge line: "tool results 58% (read 40%)"; "" when empty. */
export function dominantPhrase(b: ContextBreakdown): string {
  const [top] = sorted(b);
  if (!top || b.total_tokens <= 0) return "";
  const [category, tokens] = top;
  const phrase = `${CATEGORIES[category][0]} ${pct(tokens, b.total_tokens)}%`;
  const tool = category === "tool_results" ? b.tool_results_by_tool[0] : undefined;
  return tool && tool.tokens > 0 ? `${phrase} (${toolName(tool.tool)} ${pct(tool.tokens, b.total_tokens)}%)` : phrase;
}

/** One line: the window as `width` cells, one letter per category, `.` for what is free. */
export function breakdownBar(b: ContextBreakdown, contextWindow: number, width = 50): string {
  const whole = Math.max(contextWindow, b.total_tokens, 1);
  let cells = "";
  let used = 0;
  let acc = 0;
  for (const c of BREAKDOWN_CATEGORIES) {
    const n = b.categories[c] ?? 0;
    if (n <= 0) continue;
    acc += n;
    const upTo = Math.round((acc / whole) * width);
    cells += CATEGORIES[c][1].repeat(Math.max(0, upTo - used));
    used = Math.max(used, upTo);
  }
  const legend = sorted(b).slice(0, 6).map(([c]) => `${CATEGORIES[c][1]} ${CATEGORIES[c][0]}`);
  return `[${cells}${".".repeat(Math.max(0, width - used))}] ${legend.join(", ")}`;
}

/** Total, a row per category (results by tool), largest items, removed, headroom. */
export function breakdownTable(b: ContextBreakdown, contextWindow: number, checkpointThreshold?: number): string[] {
  const t = b.total_tokens;
  const source = b.source === "sdk" ? `provider-reported, estimate ${formatTokenCount(b.estimated_tokens)}` : "estimated, no usage reported yet";
  const lines = [
    `Context breakdown: ${formatTokenCount(t)} tokens${contextWindow > 0 ? ` (${pct(t, contextWindow)}% of ${formatTokenCount(contextWindow)})` : ""} · ${b.messages} messages · ${source}`,
  ];
  const row = (label: string, n: number, indent: string) =>
    `${indent}${label.padEnd(24 - indent.length)}${formatTokenCount(n).padStart(6)} ${String(pct(n, t)).padStart(3)}%`;
  for (const [c, n] of sorted(b)) {
    lines.push(row(CATEGORIES[c][0], n, "  "));
    if (c === "tool_results") for (const x of b.tool_results_by_tool.slice(0, 5)) lines.push(row(toolName(x.tool), x.tokens, "    "));
  }
  if (b.largest.length > 0) {
    lines.push("Largest:");
    b.largest.forEach((x, i) => {
      const what = [x.role, x.tool ? toolName(x.tool) : "", x.target ? JSON.stringify(safeGist(x.target, 60)) : ""].filter(Boolean).join(" ");
      lines.push(`  ${i + 1}. ${what} ${formatTokenCount(x.tokens)}${x.handle ? ` ${x.handle}` : ""}`);
    });
  }
  const aged = b.removed.aged_offload;
  const trim = b.removed.smart_trim;
  lines.push(
    `Taken out: aged offload ${formatTokenCount(aged.tokens)} (${aged.items} ${aged.items === 1 ? "item" : "items"}) · smart trim ${trim ? `${formatTokenCount(trim.tokens)} (${trim.items})` : "off"}`,
  );
  const head = (n: number) => (n >= 0 ? `${formatTokenCount(n)} left` : `passed by ${formatTokenCount(-n)}`);
  const cp = checkpointThreshold !== undefined ? `${Math.round(checkpointThreshold * 100)}% checkpoint` : "checkpoint";
  lines.push(`Headroom: ${cp} ${head(b.headroom.to_checkpoint)} · compaction ${b.headroom.to_compaction === null ? "unknown" : head(b.headroom.to_compaction)}`);
  return lines;
}
