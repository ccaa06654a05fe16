/**
 * The checkpoint compaction summary (issue 25): a render of the compaction checkpoint that
 * replaces the history in "checkpoint" mode, with its own budget (`compactionSummaryMaxTokens`).
 * It is the restore too: after a checkpoint compaction no restore block follows it.
 *
 * Sections: goal, status and next action, the turn log (each request with the agent's own last
 * text of that turn, newest first, the first kept), the work ledger (changed files with the
 * latest change gist and the names they define), commands with outcomes, open failures with
 * their cause, decisions, read-only files, stored-output handles, sub-agent/task calls, a host
 * summary this one follows (quoted), and one line on `context_search`.
 *
 * Budget (chars / 4 never above the cap): optional entries go first in a fixed order; the turn
 * log folds from its oldest turn (names, then the outcome cut short, then request only, then the
 * turn counted in a "folded" line); the first request, the latest three requests and every
 * changed path (one folded line) stay to the end. A later compaction renders the same cumulative
 * checkpoint, so the previous summary's content is carried forward inside the same cap.
 */
import type { Checkpoint } from "../checkpoint/schema.js";
import { estimateTextTokens } from "../text/token-estimate.js";
import { SUMMARY_CAP, type TurnView, artifactLines, changeLine, goalLine, taskLine, turnLine, turnNames, turnsOf } from "./compaction-summary-lines.js";
import { COMPACTION_SUMMARY_END, COMPACTION_SUMMARY_HEADER } from "./markers.js";
import { quoteUntrusted } from "./quote.js";
import { type Section, PathFold, SectionBudget, changedPaths, commandEntry, plural, sectionLines } from "./section-model.js";

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

const VIEW_PROGRAMS = /^(grep|rg|cat|head|tail|less|ls|find|fd|sed|awk|wc|echo|printf|pwd|which|sleep|tree|file|stat|sort|uniq|cut|jq|true)\b/;

export function isCompactionSummary(text: unknown): boolean {
  return typeof text === "string" && text.startsWith(COMPACTION_SUMMARY_HEADER);
}

export function renderCompactionSummary(cp: Checkpoint, opts: RenderCompactionSummaryOptions): RenderedCompactionSummary {
  const maxChars = Math.max(0, Math.floor(Number.isFinite(opts.maxTokens) ? opts.maxTokens : 0)) * 4;
  const work = cp.work ?? null;
  const working = cp.working ?? ({} as Checkpoint["working"]);
  const turns = turnsOf(cp);
  const views: TurnView[] = turns.map((turn, i) => ({ turn, fold: 0, first: i === turns.length - 1 && turns.length > 0, latest: i === 0 }));
  if (views.length === 1) views[0]!.latest = false;
  // the newest turns that hold the last PROTECTED_TURNS distinct requests (a repeated request counts once)
  let protect = 0;
  for (const seen = new Set<string>(); protect < views.length && seen.size < PROTECTED_TURNS; protect++) seen.add(views[protect]!.turn.request);

  const id = typeof cp.meta?.checkpoint_id === "string" && /^cp_\d{1,12}$/.test(cp.meta.checkpoint_id) ? cp.meta.checkpoint_id : "(unknown)";
  const count = Number.isInteger(cp.meta?.compaction_count) ? cp.meta.compaction_count : 0;
  const top = [
    COMPACTION_SUMMARY_HEADER,
    `The conversation before this point was replaced by this summary of checkpoint ${id} (compaction ${count} of this session), written without a model call.`,
    "context_search finds anything from before this point: exact wording, tool output, the turns folded here.",
    goalLine(turns, working.topic ?? ""),
    `Status: ${typeof working.status === "string" && /^[a-z_]{1,30}$/.test(working.status) ? working.status : "unknown"}`,
    `Next action: ${working.next_action ? quoteUntrusted(working.next_action, SUMMARY_CAP.working) : "(not recorded)"}`,
  ];
  if (working.interrupted === true) {
    const call = working.last_tool_call;
    top.push(call ? `Interrupted: yes — last tool call: ${quoteUntrusted(call.name, 40)} ${quoteUntrusted(call.params_summary, 120)}` : "Interrupted: yes");
  }

  const { files, paths } = changedPaths(cp);
  const fold = new PathFold(paths);
  const commands = (work?.commands ?? []).filter((c) => c && typeof c.family === "string" && !VIEW_PROGRAMS.test(c.family));
  const failures = (work?.open_failures ?? []).slice(0, 40).map((e) => `- ${quoteUntrusted(e?.tool, 40)}${e?.target ? ` ${quoteUntrusted(e.target, SUMMARY_CAP.failureTarget)}` : ""}: ${quoteUntrusted(e?.error, SUMMARY_CAP.failureError)}`);
  const modified = new Set(paths);
  const read = (cp.resources?.files_read ?? []).filter((p) => typeof p === "string" && !modified.has(p)).reverse();
  const previous = typeof opts.previousSummary === "string" && opts.previousSummary.trim() && !isCompactionSummary(opts.previousSummary) ? opts.previousSummary : "";
  // entries are rendered (quoted, which redacts) only while they could still fit: the cost stays
  // O(budget) on a session of any size; the rest count as dropped
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
    sec("open_failures", "Open failures (not fixed since):", failures, same),
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
    // by index, one pass: this runs once per folded turn, so it stays O(turns) per call
    let firstShown = false;
    const foldNote = `- (${plural(folded, "earlier turn")} folded: context_search finds them)`;
    for (let i = 0; i < views.length; i++) {
      const v = views[i]!;
      if (v.fold >= 3) continue;
      if (v.first) firstShown = true;
      if (v.first && folded > 0) lines.push(foldNote);
      lines.push(cachedLine(v, i));
    }
    if (!firstShown && folded > 0) lines.push(foldNote);
    turnSec.entries = lines;
  };
  renderTurns();

  const end = COMPACTION_SUMMARY_END;
  const topLen = top.reduce((n, l) => n + l.length + 1, 0);
  const OMITTED_HEAD = "(left out for the budget: ";
  const OMITTED_TAIL = "; context_search and openclaw-context show have them)";
  const omittedLine = (): string => {
    const parts = sections.filter((s) => s.dropped > 0).map((s) => `${s.dropped} ${s.key.replace("_", " ")}`);
    return parts.length > 0 ? `${OMITTED_HEAD}${parts.join(", ")}${OMITTED_TAIL}` : "";
  };
  /** `omittedLine().length`, counted (the budget asks after every drop and fold) */
  const omittedLength = (): number => {
    let n = 0;
    let parts = 0;
    for (const s of sections) {
      if (s.dropped <= 0) continue;
      n += String(s.dropped).length + 1 + s.key.length;
      parts++;
    }
    return parts > 0 ? OMITTED_HEAD.length + n + 2 * (parts - 1) + OMITTED_TAIL.length : 0;
  };
  // the top lines, a blank line, the body, the omitted line, the end marker
  const budget = new SectionBudget(sections, (body) => {
    const o = omittedLength();
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

/** Whole lines that fit, then the next line cut at a code point boundary with an ellipsis. */
function cutToChars(text: string, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  const cps = Array.from(text.slice(0, Math.max(0, max - 1)));
  // a cut inside a quoted string would leave it open: end it at the last complete line
  const cut = cps.join("");
  const nl = cut.lastIndexOf("\n");
  return nl > 0 ? cut.slice(0, nl) : "";
}
