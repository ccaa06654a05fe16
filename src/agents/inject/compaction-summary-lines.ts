/**
 * The lines of a checkpoint compaction summary (issue 25), before any budget is applied: one
 * builder per section. Every captured string goes through `quoteUntrusted` (redacted, one line,
 * invisible text removed, capped, quoted), so no line starts with captured content; paths made
 * of plain path characters are printed bare and folded under their root.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, WorkFile, WorkTask, WorkTurn } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { quoteUntrusted } from "./quote.js";
import { type PathFold, arr, changeCounts } from "./section-model.js";

/** Per-entry caps, in code points. */
export const SUMMARY_CAP = {
  goal: 300,
  request: 240,
  requestFolded: 120,
  outcome: 480,
  outcomeEarlier: 300,
  outcomeShort: 140,
  names: 160,
  change: 110,
  declared: 260,
  failureTarget: 80,
  failureError: 160,
  decision: 200,
  task: 160,
  working: 200,
  previous: 1600,
} as const;

/** One turn as the summary shows it, with how far it has been folded. */
export interface TurnView {
  turn: WorkTurn;
  /** 0 full, 1 outcome cut short, 2 request only, 3 folded away */
  fold: number;
  /** the session's first turn (its request is the goal) */
  first: boolean;
  latest: boolean;
}

/** Turns newest first with the first turn last; from the turn log, else the request list. */
export function turnsOf(cp: Checkpoint): WorkTurn[] {
  const work = cp.work;
  if (!work) return [];
  const turns = arr(work.turns).filter((t) => t && typeof t.request === "string" && t.request !== "");
  if (turns.length > 0) return turns;
  // checkpoints before the turn log: requests only, the latest report on the newest one
  return arr(work.requests)
    .filter((r) => typeof r === "string" && r !== "")
    .map((request, i) => ({ request, outcome: i === 0 && work.answered ? work.last_report : "" }));
}

export function turnLine(v: TurnView): string {
  const t = v.turn;
  const label = v.first ? "first request" : v.latest ? "latest request" : "user";
  const request = v.first ? "(the goal above)" : quoteUntrusted(t.request, v.fold >= 2 ? SUMMARY_CAP.requestFolded : SUMMARY_CAP.request);
  if (v.fold >= 2 || !t.outcome) return `- ${label}: ${request}${v.fold < 2 && !t.outcome ? " → agent: (no text)" : ""}`;
  const cap = v.fold >= 1 ? SUMMARY_CAP.outcomeShort : v.latest ? SUMMARY_CAP.outcome : SUMMARY_CAP.outcomeEarlier;
  return `- ${label}: ${request} → agent: ${quoteUntrusted(t.outcome, cap)}`;
}

/**
 * The code names the agent wrote in its turn reports: the latest turn's, then the first turn's
 * (what the session set out to do), then the others newest first; deduplicated, without the
 * changed files the summary lists anyway.
 */
export function turnNames(turns: readonly WorkTurn[], changed: readonly string[]): string[] {
  const shown = new Set(changed.flatMap((p) => [p, p.split("/").pop() ?? p]));
  const ordered = turns.length > 1 ? [turns[0]!, turns.at(-1)!, ...turns.slice(1, -1)] : [...turns];
  const out = new Set<string>();
  for (const t of ordered) {
    for (const n of arr(t.names)) {
      if (typeof n !== "string" || n === "") continue;
      if (shown.has(n) || [...shown].some((p) => p.endsWith(`/${n}`))) continue;
      out.add(n);
    }
  }
  return [...out];
}

/** The goal: the first real request; a bare reference (URL, slash command, @path) says what the agent did with it. */
export function goalLine(turns: readonly WorkTurn[], topic: string): string {
  const first = turns.at(-1);
  const request = first?.request || topic;
  if (!request) return "Goal: (not recorded)";
  const did = first && isBareReference(request) && first.outcome ? ` → agent: ${quoteUntrusted(first.outcome, SUMMARY_CAP.outcomeShort)}` : "";
  return `Goal: ${quoteUntrusted(request, SUMMARY_CAP.goal)}${did}`;
}

export function changeLine(f: WorkFile, fold: PathFold): string {
  const counts = changeCounts(f);
  const names = arr(f.names).filter((n) => typeof n === "string" && n !== "");
  const declared = names.length > 0 ? `; defines ${quoteUntrusted(names.join(", "), SUMMARY_CAP.declared)}` : "";
  const change = f.change ? `; last change ${quoteUntrusted(f.change, SUMMARY_CAP.change)}` : "";
  return `- ${fold.display(f.path)}: ${counts.join(", ") || "changed"}${declared}${change}`;
}

export function taskLine(t: WorkTask): string {
  const outcome = t.ok === null ? "no result yet" : `${t.ok ? "ok" : "failed"}: ${quoteUntrusted(t.outcome, SUMMARY_CAP.task)}`;
  return `- ${quoteUntrusted(t.tool, 40)} ${quoteUntrusted(t.id, 60)} asked ${quoteUntrusted(t.ask, SUMMARY_CAP.task)} → ${outcome}`;
}

export function artifactLines(cp: Checkpoint): string[] {
  return arr(cp.artifacts)
    .filter((a) => a && tryParseHandle(a.handle) !== null)
    .map((a) => `- ${quoteUntrusted(a.tool, 40)} ${quoteUntrusted(a.target, SUMMARY_CAP.failureTarget)}${a.lines ? ` lines ${quoteUntrusted(a.lines, 20)}` : ""}: ${a.handle}`);
}
