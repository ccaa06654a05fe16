/**
 * The restore block's sections (spec §8.2): a checkpoint turned into entries of the shared
 * section model (section-model.ts), each captured string redacted, capped and quoted (quote.ts);
 * render-restore.ts budgets and assembles them.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, Decision, KeyExchange, ToolFailure, WorkFile, WorkLedger } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { type Clock, parseDate } from "./clock.js";
import { ELLIPSIS, quoteUntrusted } from "./quote.js";
import { type RestoreExtraSection, type RestoreSection, SECTION_ORDER, SECTION_SPEC } from "./sections.js";
import { type Section, PathFold, arr, changeCounts, changedPaths, commandEntry, plural, safeCount } from "./section-model.js";

/** Per-entry length caps, in code points (quotes and escapes not counted). */
export const CAP = {
  working: 200,
  toolName: 40,
  toolParams: 120,
  decision: 200,
  summary: 240,
  exchange: 160,
  file: 160,
  tool: 40,
  errorTarget: 120,
  error: 160,
  openItem: 200,
  learning: 200,
  goal: 160,
  request: 110,
  report: 200,
  change: 110,
  changeWithNames: 70,
  names: 90,
  namesShown: 4,
  failureTarget: 80,
  failureError: 150,
  extra: 200,
} as const;

/** One declared name in a change line: a heading keeps its label before a colon ("§ WP14"), anything else its first 28 code points. */
function cutName(n: string): string {
  const label = n.startsWith("§ ") ? (n.split(":")[0] ?? n) : n;
  const cps = Array.from(label);
  return cps.length <= 28 ? label : `${cps.slice(0, 27).join("")}${ELLIPSIS}`;
}

/** Known enum/id values are printed bare; anything else is quoted like captured text. */
export function bareOrQuoted(value: unknown, allowed: RegExp): string {
  return typeof value === "string" && allowed.test(value) ? value : quoteUntrusted(value, 40);
}

/**
 * What the block takes from the turn log (issue 25): the agent's own outcome of the newest
 * OUTCOME_REQUESTS earlier requests, and of a goal that is only a reference (URL, slash command,
 * @path). Requests in `work.requests` are shorter gists of the same text as `work.turns`.
 */
const OUTCOME_REQUESTS = 2;

/** ` → agent: "<outcome>"` of the newest turn whose request `request` (a gist, maybe cut) starts; "" without one. */
function outcomeOf(work: WorkLedger | null, request: string): string {
  const head = request.endsWith(ELLIPSIS) ? request.slice(0, -ELLIPSIS.length) : request;
  if (!head) return "";
  const turn = arr(work?.turns).find((t) => t && typeof t.request === "string" && typeof t.outcome === "string" && t.request.startsWith(head));
  return turn?.outcome ? ` → agent: ${quoteUntrusted(turn.outcome, 70)}` : "";
}

export const SHOW_HINT = "`openclaw-context show` prints the full checkpoint";

export interface Model {
  /** in SECTION_ORDER */
  sections: Section<RestoreSection>[];
  /** ids of the extra sections, one per entry of the extras section before any was dropped */
  extraIds: string[];
}

/** Read-only programs whose runs say nothing about the state of the work. */
const VIEW_PROGRAMS: ReadonlySet<string> = new Set([
  "grep", "rg", "egrep", "fgrep", "ag", "cat", "head", "tail", "less", "ls", "find", "fd", "sed", "awk", "wc",
  "echo", "printf", "pwd", "which", "sleep", "tree", "file", "stat", "diff", "sort", "uniq", "cut", "jq", "true",
]);

export function buildSections(cp: Checkpoint, clock: Clock, createdDate: string | null, extras: readonly RestoreExtraSection[]): Model {
  const timeOf = (iso: unknown): string => {
    const when = parseDate(iso);
    if (!when) return "";
    const { date, time } = clock.parts(when);
    return date === createdDate ? time : `${date} ${time}`;
  };
  const decisionLine = (d: Decision): string => {
    const t = timeOf(d?.when);
    return `- ${quoteUntrusted(d?.what, CAP.decision)}${t ? ` (${t})` : ""}`;
  };
  const exchangeLine = (x: KeyExchange): string =>
    `- ${x?.role === "user" ? "user" : "agent"}: ${quoteUntrusted(x?.gist, CAP.exchange)}`;
  const errorLine = (e: ToolFailure): string => {
    const target = e?.target ? ` ${quoteUntrusted(e.target, CAP.errorTarget)}` : "";
    return `- ${quoteUntrusted(e?.tool, CAP.tool)}${target}: ${quoteUntrusted(e?.error, CAP.error)}`;
  };
  const work = cp.work && typeof cp.work === "object" ? cp.work : null;
  const topic = typeof cp.working?.topic === "string" ? cp.working.topic : "";

  const { files: ledgerFiles, paths: changed } = work ? changedPaths(cp) : { files: [], paths: [] };
  const fold = new PathFold(changed);
  const changeLine = (f: WorkFile): string => {
    const counts = changeCounts(f);
    if (safeCount(f.mentions) > 0) counts.push(`named in ${plural(safeCount(f.mentions), "request")}`);
    const t = timeOf(f.last);
    if (t) counts.push(`last ${t}`);
    // the declared names say what the work was about; the latest change gist what it did last
    const names = arr(f.names).filter((n) => typeof n === "string" && n !== "").slice(0, CAP.namesShown);
    const declared = names.length > 0 ? `; defines ${quoteUntrusted(names.map((n) => cutName(n)).join(", "), CAP.names)}` : "";
    const change = f.change ? `: ${quoteUntrusted(f.change, names.length > 0 ? CAP.changeWithNames : CAP.change)}` : "";
    return `- ${fold.display(f.path)}: ${counts.join(", ")}${declared}${change}`;
  };
  const commands = work
    ? arr(work.commands).filter((c) => c && typeof c.family === "string" && !VIEW_PROGRAMS.has(c.family.split(" ")[0] ?? ""))
    : [];
  const failureLine = (e: ToolFailure): string => {
    const tool = typeof e?.tool === "string" && /^[A-Za-z_][A-Za-z0-9_.-]{0,39}$/.test(e.tool) ? e.tool : quoteUntrusted(e?.tool, CAP.tool);
    const target = e?.target ? ` ${quoteUntrusted(e.target, CAP.failureTarget)}` : "";
    return `- ${tool}${target}: ${quoteUntrusted(e?.error, CAP.failureError)}`;
  };
  const requests = work ? arr(work.requests).filter((r) => typeof r === "string" && r) : [];
  const goal = requests.length > 1 ? requests[requests.length - 1]! : "";
  // newest first, without the first request (Goal) and the latest one when it is the topic (Working on)
  const earlier = requests.slice(0, goal ? -1 : requests.length).filter((r, i) => !(i === 0 && r === topic));

  const shownExtras = extras.filter((x) => x && Array.isArray(x.lines) && x.lines.length > 0);
  const extraBlocks = shownExtras.map((x) => {
    const title = typeof x.title === "string" && /^[A-Za-z][A-Za-z0-9_ ()',.-]{0,60}:$/.test(x.title) ? x.title : `${quoteUntrusted(x.title, 60)}:`;
    const handle = (i: number) => {
      const h = x.handles?.[i];
      return h !== undefined && tryParseHandle(h) !== null ? ` ${h}` : "";
    };
    return [title, ...x.lines.map((l, i) => `- ${quoteUntrusted(l, CAP.extra)}${handle(i)}`)].join("\n");
  });

  const summary = cp.thread?.summary && !work ? [quoteUntrusted(cp.thread.summary, CAP.summary)] : [];
  const entries: Record<RestoreSection, string[]> = {
    last_report: work?.last_report ? [quoteUntrusted(work.last_report, CAP.report)] : [],
    goal: goal && goal !== topic ? [quoteUntrusted(goal, CAP.goal) + (isBareReference(goal) ? outcomeOf(work, goal) : "")] : [],
    requests: earlier.map((r, i) => `- ${quoteUntrusted(r, CAP.request)}${i < OUTCOME_REQUESTS ? outcomeOf(work, r) : ""}`),
    extras: extraBlocks,
    files_changed: [...changed],
    changes: ledgerFiles.map(changeLine),
    commands: commands.map(commandEntry),
    open_failures: work ? arr(work.open_failures).map(failureLine) : [],
    decisions: [...arr(cp.decisions)].reverse().map(decisionLine),
    thread_summary: summary,
    key_exchanges: arr(cp.thread?.key_exchanges).map(exchangeLine),
    files_modified: work ? [] : arr(cp.resources?.files_modified).map((f) => quoteUntrusted(f, CAP.file)),
    files_read: arr(cp.resources?.files_read).map((f) => quoteUntrusted(f, CAP.file)),
    tools_used: arr(cp.resources?.tools_used).map((t) => quoteUntrusted(t, CAP.tool)),
    errors: work ? [] : arr(cp.thread?.errors).map(errorLine),
    open_items: arr(cp.open_items).map((s) => `- ${quoteUntrusted(s, CAP.openItem)}`),
    learnings: arr(cp.learnings).map((s) => `- ${quoteUntrusted(s, CAP.learning)}`),
  };
  const foldLine = (paths: readonly string[]): string => fold.head(changed.length) + fold.folded(paths);
  const sections = SECTION_ORDER.map((key): Section<RestoreSection> => {
    const { title, layout, sep } = SECTION_SPEC[key];
    return { key, title, layout, sep, fold: foldLine, entries: entries[key], dropped: 0 };
  });
  return { sections, extraIds: shownExtras.map((x) => x.id ?? String(x.title)) };
}
