/**
 * The compaction checkpoint as the text that replaces the history in "checkpoint" mode (no restore
 * follows it), without a model, within `compactionSummaryMaxTokens`: optional entries go first, then
 * the turn log folds from its oldest turn; the goal, the latest three requests and the changed paths
 * stay to the end.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, ToolFailure, WorkFile, WorkTask, WorkTurn } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { estimateTextTokens } from "../text/token-estimate.js";
import { COMPACTION_SUMMARY_END, COMPACTION_SUMMARY_HEADER } from "./markers.js";
import { quoteUntrusted } from "./quote.js";
import { type Section, PathFold, SectionBudget, sectionLines, stateLines, workCommands } from "./section-model.js";
import { arr, changeCounts, changedPaths, commandEntry, failureEntry, joinedLength, plural } from "./section-model.js";

/** Per-entry caps, in code points. */
const SUMMARY_CAP = {
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
interface TurnView {
  turn: WorkTurn;
  /** 0 full, 1 outcome cut short, 2 request only, 3 folded away */
  fold: number;
  /** the session's first turn (its request is the goal) */
  first: boolean;
  latest: boolean;
}

/** Turns newest first with the first turn last; from the turn log, else the request list. */
function turnsOf(cp: Checkpoint): WorkTurn[] {
  const work = cp.work;
  if (!work) return [];
  const turns = arr(work.turns).filter((t) => t && typeof t.request === "string" && t.request !== "");
  if (turns.length > 0) return turns;
  // checkpoints before the turn log: requests only, the latest report on the newest one
  return arr(work.requests)
    .filter((r) => typeof r === "string" && r !== "")
    .map((request, i) => ({ request, outcome: i === 0 && work.answered ? work.last_report : "" }));
}

function turnLine(v: TurnView): string {
  const t = v.turn;
  const label = v.first ? "first request" : v.latest ? "latest request" : "user";
  const request = v.first ? "(the goal above)" : quoteUntrusted(t.request, v.fold >= 2 ? SUMMARY_CAP.requestFolded : SUMMARY_CAP.request);
  if (v.fold >= 2 || !t.outcome) return `- ${label}: ${request}${v.fold < 2 && !t.outcome ? " → agent: (no text)" : ""}`;
  const cap = v.fold >= 1 ? SUMMARY_CAP.outcomeShort : v.latest ? SUMMARY_CAP.outcome : SUMMARY_CAP.outcomeEarlier;
  return `- ${label}: ${request} → agent: ${quoteUntrusted(t.outcome, cap)}`;
}

/** Code names from the turn reports: the latest turn's, the first's, then the others; no changed file. */
function turnNames(turns: readonly WorkTurn[], changed: readonly string[]): string[] {
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
function goalLine(turns: readonly WorkTurn[], topic: string): string {
  const first = turns.at(-1);
  const request = first?.request || topic;
  if (!request) return "Goal: (not recorded)";
  const did = first && isBareReference(request) && first.outcome ? ` → agent: ${quoteUntrusted(first.outcome, SUMMARY_CAP.outcomeShort)}` : "";
  return `Goal: ${quoteUntrusted(request, SUMMARY_CAP.goal)}${did}`;
}

function changeLine(f: WorkFile, fold: PathFold): string {
  const counts = changeCounts(f);
  const names = arr(f.names).filter((n) => typeof n === "string" && n !== "");
  const declared = names.length > 0 ? `; defines ${quoteUntrusted(names.join(", "), SUMMARY_CAP.declared)}` : "";
  const change = f.change ? `; last change ${quoteUntrusted(f.change, SUMMARY_CAP.change)}` : "";
  return `- ${fold.display(f.path)}: ${counts.join(", ") || "changed"}${declared}${change}`;
}

function taskLine(t: WorkTask): string {
  const outcome = t.ok === null ? "no result yet" : `${t.ok ? "ok" : "failed"}: ${quoteUntrusted(t.outcome, SUMMARY_CAP.task)}`;
  return `- ${quoteUntrusted(t.tool, 40)} ${quoteUntrusted(t.id, 60)} asked ${quoteUntrusted(t.ask, SUMMARY_CAP.task)} → ${outcome}`;
}

function artifactLines(cp: Checkpoint): string[] {
  return arr(cp.artifacts)
    .filter((a) => a && tryParseHandle(a.handle) !== null)
    .map((a) => `- ${quoteUntrusted(a.tool, 40)} ${quoteUntrusted(a.target, SUMMARY_CAP.failureTarget)}${a.lines ? ` lines ${quoteUntrusted(a.lines, 20)}` : ""}: ${a.handle}`);
}

export interface RenderCompactionSummaryOptions {
  maxTokens: number;
  /** the summary this compaction follows (pi's `previousSummary`); one of ours is not repeated */
  previousSummary?: string | null;
}

export interface RenderedCompactionSummary {
  text: string;
  tokens: number;
  /** turns folded into the "earlier turns" count */
  foldedTurns: number;
  /** sections or entries left out for the budget */
  omitted: string[];
}

/** Requests that keep their full line to the end (the issue's "last 3 requests"). */
const PROTECTED_TURNS = 3;

export function isCompactionSummary(text: unknown): boolean {
  return typeof text === "string" && text.startsWith(COMPACTION_SUMMARY_HEADER);
}

export function renderCompactionSummary(cp: Checkpoint, opts: RenderCompactionSummaryOptions): RenderedCompactionSummary {
  const maxChars = Math.max(0, Math.floor(Number.isFinite(opts.maxTokens) ? opts.maxTokens : 0)) * 4;
  const work = cp.work ?? null;
  const working = cp.working ?? ({} as Checkpoint["working"]);
  const turns = turnsOf(cp);
  const views: TurnView[] = turns.map((turn, i) => ({ turn, fold: 0, first: i === turns.length - 1, latest: i === 0 && turns.length > 1 }));
  // the newest turns that hold the last PROTECTED_TURNS distinct requests (a repeated request counts once)
  let protect = 0;
  for (const seen = new Set<string>(); protect < views.length && seen.size < PROTECTED_TURNS; protect++) seen.add(views[protect]!.turn.request);

  const id = typeof cp.meta?.checkpoint_id === "string" && /^cp_\d{1,12}$/.test(cp.meta.checkpoint_id) ? cp.meta.checkpoint_id : "(unknown)";
  const count = Number.isInteger(cp.meta?.compaction_count) ? cp.meta.compaction_count : 0;
  const known = typeof working.status === "string" && /^[a-z_]{1,30}$/.test(working.status);
  const status = known ? working.status : "unknown";
  const top = [
    COMPACTION_SUMMARY_HEADER,
    `The conversation before this point was replaced by this summary of checkpoint ${id} (compaction ${count} of this session), written without a model call.`,
    "context_search finds anything from before this point: exact wording, tool output, the turns folded here.",
    goalLine(turns, working.topic ?? ""),
    ...stateLines(working, status, SUMMARY_CAP.working),
  ];

  const { files, paths } = changedPaths(cp);
  const fold = new PathFold(paths);
  const commands = workCommands(cp);
  const failureLine = (e: ToolFailure): string => failureEntry(e, SUMMARY_CAP.failureTarget, SUMMARY_CAP.failureError);
  const modified = new Set(paths);
  const read = (cp.resources?.files_read ?? []).filter((p) => typeof p === "string" && !modified.has(p)).reverse();
  const previous = typeof opts.previousSummary === "string" && opts.previousSummary.trim() && !isCompactionSummary(opts.previousSummary) ? opts.previousSummary : "";
  // entries are rendered (quoting redacts) only while they could fit: O(budget) on any session
  const sec = <T>(key: string, title: string, items: readonly T[], render: (t: T) => string, inline = false): Section => {
    const entries: string[] = [];
    let len = 0;
    for (const item of items) {
      if (len > maxChars) break;
      const e = render(item);
      entries.push(e);
      len += e.length + 2;
    }
    return { key, title, layout: inline ? "inline" : "list", entries, dropped: items.length - entries.length };
  };
  const same = (x: string): string => x;
  const turnSec = sec("turns", "Turns, newest first (the user's request → the agent's own last words that turn):", [], same);
  const filesLine = sec("files_changed", fold.head(paths.length), paths.length > 0 ? [fold.folded(paths)] : [], same, true);
  const sections: Section[] = [
    turnSec,
    sec("names", "Code names in the agent's reports (newest first): ", turnNames(turns, paths), (n) => quoteUntrusted(n, 60), true),
    filesLine,
    sec("changes", "", files, (f) => changeLine(f, fold)),
    sec("commands", "Commands: ", commands, commandEntry, true),
    sec("open_failures", "Open failures (not fixed since):", (work?.open_failures ?? []).slice(0, 40), failureLine),
    sec("decisions", "Decisions:", [...(cp.decisions ?? [])].reverse(), (d) => `- ${quoteUntrusted(d?.what, SUMMARY_CAP.decision)}`),
    sec("open_items", "Open items:", cp.open_items ?? [], (s) => `- ${quoteUntrusted(s, SUMMARY_CAP.decision)}`),
    sec("tasks", "Sub-agent and task calls:", work?.tasks ?? [], taskLine),
    sec("files_read", "Files read (not changed): ", read, (p) => fold.display(p), true),
    sec("artifacts", "Stored outputs (artifact_fetch <handle>):", artifactLines(cp), same),
    sec("previous", "Earlier summary (the host's, before this manager compacted):", previous ? [previous] : [], (x) => `- ${quoteUntrusted(x, SUMMARY_CAP.previous)}`),
  ];

  let folded = 0;
  // a turn's line per fold level, rendered once (quoting redacts: the fold loop must not repeat it)
  const lineCache = new Map<string, string>();
  const cachedLine = (v: TurnView, i: number): string => {
    const k = `${i}:${v.fold}`;
    let l = lineCache.get(k);
    if (l === undefined) lineCache.set(k, (l = turnLine(v)));
    return l;
  };
  const renderTurns = (): void => {
    const lines: string[] = [];
    // by index, one pass: this runs once per folded turn, so it stays O(turns) per call; the first
    // turn (the last view) is never folded away, so the note always goes before it
    const foldNote = `- (${plural(folded, "earlier turn")} folded: context_search finds them)`;
    for (let i = 0; i < views.length; i++) {
      const v = views[i]!;
      if (v.fold >= 3) continue;
      if (v.first && folded > 0) lines.push(foldNote);
      lines.push(cachedLine(v, i));
    }
    turnSec.entries = lines;
  };
  renderTurns();

  const end = COMPACTION_SUMMARY_END;
  const topLen = joinedLength(top) + 1;
  const OMITTED_HEAD = "(left out for the budget: ";
  const OMITTED_TAIL = "; context_search and openclaw-context show have them)";
  const omittedLine = (): string => {
    const parts = sections.filter((s) => s.dropped > 0).map((s) => `${s.dropped} ${s.key.replace("_", " ")}`);
    return parts.length > 0 ? `${OMITTED_HEAD}${parts.join(", ")}${OMITTED_TAIL}` : "";
  };
  const budget = new SectionBudget(sections, (body) => {
    const o = omittedLine().length;
    return topLen + 1 + body + (o ? o + 1 : 0) + end.length;
  });
  const total = () => budget.total();
  const dropFrom = (key: string, keep: number): void => budget.drop(key, keep, maxChars);
  /** Fold unprotected turns from the oldest, one level at a time, while over budget. */
  const foldTurns = (level: number, protect: number): void => {
    for (let i = views.length - 1; i >= 0 && total() > maxChars; i--) {
      const v = views[i]!;
      if (v.first || i < protect || v.fold >= level) continue;
      v.fold = level;
      if (level === 3) folded++;
      renderTurns();
      budget.relen(turnSec);
    }
  };

  // the drop plan: least useful first
  dropFrom("previous", 0);
  dropFrom("files_read", 6);
  dropFrom("artifacts", 3);
  dropFrom("tasks", 4);
  dropFrom("decisions", 4);
  dropFrom("open_items", 3);
  dropFrom("commands", 8);
  foldTurns(1, protect);
  dropFrom("changes", 10);
  foldTurns(2, protect);
  foldTurns(3, protect);
  dropFrom("names", 60);
  dropFrom("changes", 4);
  // the protected turns and the first: short outcomes
  for (const v of views) if (v.first && total() > maxChars && v.fold < 1) (v.fold = 1), renderTurns(), budget.relen(turnSec);
  foldTurns(1, 1);
  dropFrom("files_read", 0);
  dropFrom("artifacts", 0);
  dropFrom("tasks", 0);
  dropFrom("decisions", 0);
  dropFrom("open_items", 0);
  dropFrom("commands", 3);
  dropFrom("names", 24);
  dropFrom("open_failures", 2);
  dropFrom("changes", 0);
  foldTurns(1, 0);
  // then requests only; the requests themselves stay
  foldTurns(2, 0);
  dropFrom("names", 0);
  dropFrom("commands", 0);
  dropFrom("open_failures", 0);

  const omitted = omittedLine();
  let lines = [...top, "", ...budget.lines(), ...(omitted ? [omitted] : []), end];
  let text = lines.join("\n");
  if (text.length > maxChars) {
    // never fails for size: the frame, the goal and the changed paths, cut to the cap
    lines = [top[0]!, top[2]!, top[3]!, ...sectionLines(filesLine)].filter(Boolean);
    text = `${cutToChars(lines.join("\n"), maxChars - end.length - 1)}\n${end}`;
    if (text.length > maxChars) text = "";
  }
  return {
    text,
    tokens: estimateTextTokens(text),
    foldedTurns: folded,
    omitted: sections.filter((s) => s.dropped > 0).map((s) => s.key),
  };
}

/** The whole lines that fit (a cut inside a quoted string would leave it open). */
function cutToChars(text: string, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(0, max - 1));
  const nl = cut.lastIndexOf("\n");
  return nl > 0 ? cut.slice(0, nl) : "";
}
