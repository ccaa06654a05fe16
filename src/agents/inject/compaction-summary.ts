/**
 * The compaction checkpoint as the text that replaces the history in "checkpoint" mode (no restore
 * follows it), without a model, within `compactionSummaryMaxTokens`: optional entries go first, then
 * the turn log folds from its oldest turn; the goal, the latest three requests and the changed paths
 * stay to the end.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, WorkFile, WorkTask, WorkTurn } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { estimateTextTokens } from "../text/token-estimate.js";
import { COMPACTION_SUMMARY_END, COMPACTION_SUMMARY_HEADER } from "./markers.js";
import { quoteUntrusted } from "./quote.js";
import { type Section, PathFold, SectionBudget, sectionLines, stateLines, workCommands } from "./section-model.js";
import { arr, changeCounts, changedPaths, commandEntry, failureEntry, joinedLength, plural } from "./section-model.js";

/** Per-entry caps, in code points. */
const CAP = {
  goal: 300,
  request: 240,
  requestFolded: 120,
  outcome: 480,
  outcomeEarlier: 300,
  outcomeShort: 140,
  change: 110,
  declared: 260,
  failureTarget: 80,
  failureError: 160,
  decision: 200,
  task: 160,
  working: 200,
  previous: 1600,
} as const;

/** One turn as the summary shows it: `fold` 0 full, 1 outcome cut short, 2 request only, 3 folded away. */
interface TurnView {
  turn: WorkTurn;
  fold: number;
  /** the session's first turn (its request is the goal) */
  first: boolean;
  latest: boolean;
  /** its line per fold level, rendered once (quoting redacts: the fold loop must not repeat it) */
  lines: string[];
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

function turnLine({ turn: t, fold, first, latest }: TurnView): string {
  const label = first ? "first request" : latest ? "latest request" : "user";
  const request = first ? "(the goal above)" : quoteUntrusted(t.request, fold >= 2 ? CAP.requestFolded : CAP.request);
  if (fold >= 2 || !t.outcome) return `- ${label}: ${request}${fold < 2 && !t.outcome ? " → agent: (no text)" : ""}`;
  const cap = fold >= 1 ? CAP.outcomeShort : latest ? CAP.outcome : CAP.outcomeEarlier;
  return `- ${label}: ${request} → agent: ${quoteUntrusted(t.outcome, cap)}`;
}

/** Code names from the turn reports: the latest turn's, the first's, then the others; no changed file. */
function turnNames(turns: readonly WorkTurn[], changed: readonly string[]): string[] {
  const shown = new Set(changed.flatMap((p) => [p, p.split("/").pop() ?? p]));
  const ordered = turns.length > 1 ? [turns[0]!, turns.at(-1)!, ...turns.slice(1, -1)] : [...turns];
  const names = ordered.flatMap((t) => arr(t.names)).filter((n) => typeof n === "string" && n !== "");
  return [...new Set(names)].filter((n) => !shown.has(n) && ![...shown].some((p) => p.endsWith(`/${n}`)));
}

/** The goal: the first real request; a bare reference (URL, slash command, @path) says what the agent did with it. */
function goalLine(turns: readonly WorkTurn[], topic: string): string {
  const first = turns.at(-1);
  const request = first?.request || topic;
  if (!request) return "Goal: (not recorded)";
  const did = first && isBareReference(request) && first.outcome ? ` → agent: ${quoteUntrusted(first.outcome, CAP.outcomeShort)}` : "";
  return `Goal: ${quoteUntrusted(request, CAP.goal)}${did}`;
}

function changeLine(f: WorkFile, fold: PathFold): string {
  const names = arr(f.names).filter((n) => typeof n === "string" && n !== "");
  const declared = names.length > 0 ? `; defines ${quoteUntrusted(names.join(", "), CAP.declared)}` : "";
  const change = f.change ? `; last change ${quoteUntrusted(f.change, CAP.change)}` : "";
  return `- ${fold.display(f.path)}: ${changeCounts(f).join(", ") || "changed"}${declared}${change}`;
}

function taskLine(t: WorkTask): string {
  const outcome = t.ok === null ? "no result yet" : `${t.ok ? "ok" : "failed"}: ${quoteUntrusted(t.outcome, CAP.task)}`;
  return `- ${quoteUntrusted(t.tool, 40)} ${quoteUntrusted(t.id, 60)} asked ${quoteUntrusted(t.ask, CAP.task)} → ${outcome}`;
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

/**
 * The drop plan, least useful first: `[section, keep]` drops entries down to `keep`; `[level, newest]`
 * folds turns (oldest first) to `level`, sparing the `newest` ones ("protected": the latest three
 * requests) and the first turn, which only "first" folds (to short outcome).
 */
type Step =
  | readonly [section: string, keep: number]
  | readonly [level: 1 | 2 | 3, newest: number | "protected" | "first"];
const PLAN: readonly Step[] = [
  ["previous", 0], ["files_read", 6], ["artifacts", 3], ["tasks", 4], ["decisions", 4], ["open_items", 3],
  ["commands", 8], [1, "protected"], ["changes", 10], [2, "protected"], [3, "protected"], ["names", 60],
  ["changes", 4], [1, "first"], [1, 1], ["files_read", 0], ["artifacts", 0], ["tasks", 0], ["decisions", 0],
  ["open_items", 0], ["commands", 3], ["names", 24], ["open_failures", 2], ["changes", 0], [1, 0],
  // then requests only; the requests themselves stay
  [2, 0], ["names", 0], ["commands", 0], ["open_failures", 0],
];

const OMITTED_HEAD = "(left out for the budget: ";
const OMITTED_TAIL = "; context_search and openclaw-context show have them)";

export function renderCompactionSummary(cp: Checkpoint, opts: RenderCompactionSummaryOptions): RenderedCompactionSummary {
  const maxChars = Math.max(0, Math.floor(Number.isFinite(opts.maxTokens) ? opts.maxTokens : 0)) * 4;
  const work = cp.work ?? null;
  const working = cp.working ?? ({} as Checkpoint["working"]);
  const turns = turnsOf(cp);
  const last = turns.length - 1;
  const views = turns.map((turn, i): TurnView => {
    return { turn, fold: 0, first: i === last, latest: i === 0 && last > 0, lines: [] };
  });
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
    ...stateLines(working, status, CAP.working),
  ];

  const { files, paths } = changedPaths(cp);
  const fold = new PathFold(paths);
  const modified = new Set(paths);
  const read = (cp.resources?.files_read ?? []).filter((p) => typeof p === "string" && !modified.has(p)).reverse();
  const prev = opts.previousSummary;
  const previous = typeof prev === "string" && prev.trim() && !prev.startsWith(COMPACTION_SUMMARY_HEADER) ? prev : "";
  const artifacts = arr(cp.artifacts).filter((a) => a && tryParseHandle(a.handle) !== null);
  // entries are rendered (quoting redacts) only while they could fit: O(budget) on any session
  const sec = <T>(key: string, title: string, items: readonly T[], render: (t: T) => string): Section => {
    const entries: string[] = [];
    for (let i = 0, len = 0; i < items.length && len <= maxChars; i++) {
      entries.push(render(items[i]!));
      len += entries[i]!.length + 2;
    }
    return { key, title, entries, dropped: items.length - entries.length };
  };
  const same = (x: string): string => x;
  const turnSec = sec("turns", "Turns, newest first (the user's request → the agent's own last words that turn):", [], same);
  const filesLine = sec("files_changed", fold.head(paths.length), paths.length > 0 ? [fold.folded(paths)] : [], same);
  const sections: Section[] = [
    turnSec,
    sec("names", "Code names in the agent's reports (newest first): ", turnNames(turns, paths), (n) => quoteUntrusted(n, 60)),
    filesLine,
    sec("changes", "", files, (f) => changeLine(f, fold)),
    sec("commands", "Commands: ", workCommands(cp), commandEntry),
    sec("open_failures", "Open failures (not fixed since):", (work?.open_failures ?? []).slice(0, 40), (e) =>
      failureEntry(e, CAP.failureTarget, CAP.failureError)),
    sec("decisions", "Decisions:", [...(cp.decisions ?? [])].reverse(), (d) => `- ${quoteUntrusted(d?.what, CAP.decision)}`),
    sec("open_items", "Open items:", cp.open_items ?? [], (s) => `- ${quoteUntrusted(s, CAP.decision)}`),
    sec("tasks", "Sub-agent and task calls:", work?.tasks ?? [], taskLine),
    sec("files_read", "Files read (not changed): ", read, (p) => fold.display(p)),
    sec("artifacts", "Stored outputs (artifact_fetch <handle>):", artifacts, (a) =>
      `- ${quoteUntrusted(a.tool, 40)} ${quoteUntrusted(a.target, CAP.failureTarget)}${a.lines ? ` lines ${quoteUntrusted(a.lines, 20)}` : ""}: ${a.handle}`),
    sec("previous", "Earlier summary (the host's, before this manager compacted):", previous ? [previous] : [], (x) => `- ${quoteUntrusted(x, CAP.previous)}`),
  ];

  let folded = 0;
  const renderTurns = (): void => {
    // one pass per folded turn; the first turn (the last view) is never folded away, so the note goes before it
    const foldNote = `- (${plural(folded, "earlier turn")} folded: context_search finds them)`;
    turnSec.entries = views.flatMap((v) => {
      if (v.fold >= 3) return [];
      const line = (v.lines[v.fold] ??= turnLine(v));
      return v.first && folded > 0 ? [foldNote, line] : [line];
    });
  };
  renderTurns();

  const omittedLine = (): string => {
    const parts = sections.filter((s) => s.dropped > 0).map((s) => `${s.dropped} ${s.key.replace("_", " ")}`);
    return parts.length > 0 ? `${OMITTED_HEAD}${parts.join(", ")}${OMITTED_TAIL}` : "";
  };
  const topLen = joinedLength(top) + 1;
  const budget = new SectionBudget(sections, (body) => {
    const o = omittedLine().length;
    return topLen + 1 + body + (o ? o + 1 : 0) + COMPACTION_SUMMARY_END.length;
  });
  /** Fold the turns at views[lo..hi] from the oldest, to `level`, while over budget. */
  const foldTurns = (level: number, lo: number, hi: number): void => {
    for (let i = hi; i >= Math.max(0, lo) && budget.total() > maxChars; i--) {
      if (views[i]!.fold >= level) continue;
      views[i]!.fold = level;
      if (level === 3) folded++;
      renderTurns();
      budget.relen(turnSec);
    }
  };
  for (const [what, keep] of PLAN) {
    if (typeof what === "string") budget.drop(what, keep as number, maxChars);
    else if (keep === "first") foldTurns(what, last, last);
    else foldTurns(what, keep === "protected" ? protect : keep, last - 1);
  }

  const omitted = omittedLine();
  const body = sections.flatMap(sectionLines);
  let text = [...top, "", ...body, ...(omitted ? [omitted] : []), COMPACTION_SUMMARY_END].join("\n");
  if (text.length > maxChars) {
    // never fails for size: the frame, the goal and the changed paths, cut to the cap
    let head = [top[0]!, top[2]!, top[3]!, ...sectionLines(filesLine)].filter(Boolean).join("\n");
    // the whole lines that fit (a cut inside a quoted string would leave it open)
    const max = maxChars - COMPACTION_SUMMARY_END.length - 1;
    if (head.length > max) head = head.slice(0, Math.max(0, head.lastIndexOf("\n", max - 2)));
    text = `${head}\n${COMPACTION_SUMMARY_END}`;
    if (text.length > maxChars) text = "";
  }
  const omittedKeys = sections.filter((s) => s.dropped > 0).map((s) => s.key);
  return { text, tokens: estimateTextTokens(text), foldedTurns: folded, omitted: omittedKeys };
}
