/**
 * Restore block (spec §8.2), injected after a compaction or on resume. Captured text cannot shape it
 * (quoted: no line starts with it), and `tokens` never exceeds `maxTokens` (entries dropped, named).
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, Decision, KeyExchange, ToolFailure, WorkFile, WorkLedger } from "../checkpoint/schema.js";
import { isBareReference } from "../state/turn-log.js";
import { estimateTextTokens } from "../text/token-estimate.js";
import { formatTokenCount } from "../gauge/gauge-line.js";
import { RESTORE_END_MARKER, RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "./markers.js";
import { ELLIPSIS, quoteUntrusted } from "./quote.js";
import { type Section, PathFold, SectionBudget, failureEntry, joinedLength, sectionLines } from "./section-model.js";
import { stateLines, workCommands } from "./section-model.js";
import { arr, changeCounts, changedPaths, commandEntry, plural, safeCount } from "./section-model.js";

export interface RestoreExtraSection {
  /** names the section in RenderedRestore.omittedExtras (default: its title) */
  id?: string;
  /** a short title; printed as given when it is plain text ending in ":", else quoted */
  title: string;
  /** entries, each rendered as `- "<quoted, redacted, capped>"` */
  lines: string[];
  /** per entry, an artifact handle printed unquoted after it (quoting would redact its hex); anything but a strict handle is dropped */
  handles?: Array<string | undefined>;
}

export interface RenderRestoreOptions {
  kind: "post-compaction" | "resume";
  maxTokens: number;
  /** IANA zone for times (default UTC); an unknown zone falls back to UTC */
  timeZone?: string;
  /** sections from other features (workspace drift), budgeted by the same plan */
  extraSections?: RestoreExtraSection[];
}

export interface RenderedRestore {
  text: string;
  tokens: number;
  /** names of sections that were dropped in whole or in part to fit `maxTokens` */
  omitted: string[];
  /** ids of the extra sections left out (each goes whole); set only when `extraSections` was passed */
  omittedExtras?: string[];
}

/** The sections that may be trimmed. */
type RestoreSection = "last_report" | "goal" | "requests" | "extras" | "files_changed" | "changes" | "commands"
  | "open_failures" | "decisions" | "thread_summary" | "key_exchanges" | "files_modified" | "files_read" | "tools_used"
  | "errors" | "open_items" | "learnings";
/** A restore section: `label` names it in the "not shown" note; `whole`: it goes whole, named without a count. */
type RestoreSectionOf = Section<RestoreSection> & { label: string; whole: boolean };
/** `tail`: its entries go from the tail (its first entries matter most); the others' from the front. */
type How = "whole" | "tail" | "";

/** The drop plan, least useful first: entries down to `keep` while over SOFT_SHARE of the cap, or the cap. */
export const RESTORE_DROP_PLAN: ReadonlyArray<{ section: RestoreSection; keep: number; budget: "soft" | "hard" }> = [
  ...steps("soft", [
    ["files_read", 0], ["tools_used", 0], ["key_exchanges", 2], ["thread_summary", 0], ["learnings", 2],
    ["decisions", 3], ["open_items", 3], ["errors", 3], ["key_exchanges", 0], ["commands", 3], ["changes", 4],
    ["requests", 5], ["decisions", 1], ["open_items", 1], ["learnings", 0], ["files_modified", 5], ["changes", 3],
    ["errors", 1],
  ]),
  ...steps("hard", [
    ["commands", 2], ["requests", 3], ["open_failures", 4], ["errors", 0], ["extras", 0], ["decisions", 0],
    ["changes", 0], ["commands", 0], ["open_items", 0], ["last_report", 0], ["open_failures", 2],
    ["files_changed", 30], ["files_modified", 0], ["requests", 2], ["goal", 0], ["requests", 0], ["open_failures", 0],
    ["files_changed", 10], ["files_changed", 0],
  ]),
];

function steps(budget: "soft" | "hard", plan: ReadonlyArray<readonly [RestoreSection, number]>) {
  return plan.map(([section, keep]) => ({ section, keep, budget }));
}

/** The soft budget: the block's typical size (600-750 tokens at the default cap of 800). */
export const SOFT_SHARE = 0.93;

/** Times in a restore block: one zone for the whole block, shown by name; bad input never throws. */
type Clock = ReturnType<typeof makeClock>;
function makeClock(timeZone: string | undefined) {
  const build = (tz: string): Intl.DateTimeFormat =>
    new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
  // the zone name is host-provided config: a token-like label, else (like an unknown zone) UTC
  let zone = timeZone && /^[A-Za-z0-9_+\-/]{1,64}$/.test(timeZone) ? timeZone : "UTC";
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = build(zone);
  } catch {
    [fmt, zone] = [build("UTC"), "UTC"];
  }
  const parts = (d: Date): { date: string; time: string } => {
    const p: Record<string, string> = {};
    for (const part of fmt.formatToParts(d)) p[part.type] = part.value;
    return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
  };
  // stamp: "<date> <time> <zone>"
  return { parts, stamp: (d: Date): string => [...Object.values(parts(d)), zone].join(" ") };
}

function parseDate(iso: unknown): Date | null {
  if (typeof iso !== "string") return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Per-entry length caps, in code points (quotes and escapes not counted). */
const CAP = {
  working: 200,
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

/** A declared name in a change line: a heading's label before its colon ("§ WP14"), else 28 code points. */
function cutName(n: string): string {
  const label = n.startsWith("§ ") ? (n.split(":")[0] ?? n) : n;
  const cps = Array.from(label);
  return cps.length <= 28 ? label : `${cps.slice(0, 27).join("")}${ELLIPSIS}`;
}

/** Known enum/id values are printed bare; anything else is quoted like captured text. */
function bareOrQuoted(value: unknown, allowed: RegExp): string {
  return typeof value === "string" && allowed.test(value) ? value : quoteUntrusted(value, 40);
}

/** Earlier requests shown with the agent's outcome (newest first); a goal that is a bare reference has it too. */
const OUTCOME_REQUESTS = 2;

/** ` → agent: "<outcome>"` of the newest turn whose request starts with `request` (a gist, maybe cut). */
function outcomeOf(work: WorkLedger | null, request: string): string {
  const head = request.endsWith(ELLIPSIS) ? request.slice(0, -ELLIPSIS.length) : request;
  if (!head) return "";
  const turn = arr(work?.turns).find((t) => t && typeof t.request === "string" && typeof t.outcome === "string" && t.request.startsWith(head));
  return turn?.outcome ? ` → agent: ${quoteUntrusted(turn.outcome, 70)}` : "";
}

const SHOW_HINT = "`openclaw-context show` prints the full checkpoint";

/** The sections in block order; `extras`: those with entries. */
function buildSections(
  cp: Checkpoint,
  clock: Clock,
  createdDate: string | null,
  extras: RestoreExtraSection[],
): RestoreSectionOf[] {
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
  const failureLine = (e: ToolFailure): string =>
    failureEntry(e, CAP.failureTarget, CAP.failureError, bareOrQuoted(e?.tool, /^[A-Za-z_][A-Za-z0-9_.-]{0,39}$/));
  const requests = work ? arr(work.requests).filter((r) => typeof r === "string" && r) : [];
  const goal = requests.length > 1 ? requests[requests.length - 1]! : "";
  // newest first, without the first request (Goal) and the latest one when it is the topic (Working on)
  const earlier = requests.slice(0, goal ? -1 : requests.length).filter((r, i) => !(i === 0 && r === topic));

  const extraBlocks = extras.map((x) => {
    const title = typeof x.title === "string" && /^[A-Za-z][A-Za-z0-9_ ()',.-]{0,60}:$/.test(x.title) ? x.title : `${quoteUntrusted(x.title, 60)}:`;
    const handle = (h: string | undefined) => (h !== undefined && tryParseHandle(h) !== null ? ` ${h}` : "");
    return [title, ...x.lines.map((l, i) => `- ${quoteUntrusted(l, CAP.extra)}${handle(x.handles?.[i])}`)].join("\n");
  });

  const foldHead = fold.head(changed.length);
  const commands = work ? workCommands(cp).map(commandEntry) : [];
  const summary = cp.thread?.summary && !work ? [quoteUntrusted(cp.thread.summary, CAP.summary)] : [];
  const sec = (key: RestoreSection, title: string, label: string, how: How, entries: string[]): RestoreSectionOf =>
    ({ key, title, label, entries, dropped: 0, whole: how === "whole", fromFront: how !== "tail" });
  const files = (paths: string[] | undefined, cap: number): string[] => arr(paths).map((f) => quoteUntrusted(f, cap));
  const items = (list: string[] | undefined, cap: number) => arr(list).map((x) => `- ${quoteUntrusted(x, cap)}`);
  return [
    sec("last_report", "Agent's last report: ", "last report", "whole",
      work?.last_report ? [quoteUntrusted(work.last_report, CAP.report)] : []),
    sec("goal", "Goal (first request): ", "goal", "whole", goal && goal !== topic
      ? [quoteUntrusted(goal, CAP.goal) + (isBareReference(goal) ? outcomeOf(work, goal) : "")] : []),
    sec("requests", "Earlier requests (newest first):", "earlier requests", "tail",
      earlier.map((r, i) => `- ${quoteUntrusted(r, CAP.request)}${i < OUTCOME_REQUESTS ? outcomeOf(work, r) : ""}`)),
    // each entry a block of lines, title included
    sec("extras", "", "extra sections", "whole", extraBlocks),
    { ...sec("files_changed", "", "changed files", "tail", [...changed]), fold: (p) => foldHead + fold.folded(p) },
    sec("changes", "Main changes (most important first):", "main changes", "tail", ledgerFiles.map(changeLine)),
    { ...sec("commands", "Commands (latest outcome): ", "commands", "tail", commands), sep: "; " },
    sec("open_failures", "Open failures (unresolved at this point; do not retry blindly):", "open failures", "",
      work ? arr(work.open_failures).map(failureLine) : []),
    sec("decisions", "Decisions made (newest first):", "decisions", "tail",
      arr(cp.decisions).map(decisionLine).reverse()),
    sec("thread_summary", "Thread: ", "thread summary", "whole", summary),
    sec("key_exchanges", "Key exchanges:", "exchanges", "", arr(cp.thread?.key_exchanges).map(exchangeLine)),
    sec("files_modified", "Files modified: ", "modified files", "",
      work ? [] : files(cp.resources?.files_modified, CAP.file)),
    sec("files_read", "Files read: ", "read files", "", files(cp.resources?.files_read, CAP.file)),
    sec("tools_used", "Tools used: ", "tools", "", files(cp.resources?.tools_used, CAP.tool)),
    sec("errors", "Tool failures (do not retry blindly):", "tool failures", "",
      work ? [] : arr(cp.thread?.errors).map((e) => failureEntry(e, CAP.errorTarget, CAP.error))),
    sec("open_items", "Open items:", "open items", "tail", items(cp.open_items, CAP.openItem)),
    sec("learnings", "Learnings (consider storing to long-term memory via memory_store):", "learnings", "tail",
      items(cp.learnings, CAP.learning)),
  ];
}

/** `meta.compaction_count` above this adds the death-spiral warning (spec §5.5). */
export const DEATH_SPIRAL_COMPACTIONS = 3;

function omittedLine(sections: readonly RestoreSectionOf[], compact: boolean): string | null {
  const parts = sections.filter((s) => s.dropped > 0).map((s) =>
    s.whole ? s.label : `${s.dropped}${s.entries.length > 0 ? " more" : ""} ${s.label}`);
  if (parts.length === 0) return null;
  return compact ? `(more not shown: ${SHOW_HINT})` : `(not shown: ${parts.join(", ")}; ${SHOW_HINT})`;
}

/** How hard the kept lines are squeezed once the optional ones are gone; `noNote`: the last resort, no "not shown". */
type Squeeze = { workingCap: number; compact: boolean; noNote?: boolean };

const SQUEEZE_LEVELS: readonly Squeeze[] = [
  { workingCap: CAP.working, compact: false },
  { workingCap: 100, compact: false },
  { workingCap: 40, compact: false },
  { workingCap: 40, compact: true },
  { workingCap: 16, compact: true },
  { workingCap: 6, compact: true },
  { workingCap: 6, compact: true, noNote: true },
];

/** The lines above the body, and the death-spiral note below it (or null), at squeeze level `sq`. */
type Kind = RenderRestoreOptions["kind"];
function frameLines(cp: Checkpoint, kind: Kind, clock: Clock, sq: Squeeze): [string[], string | null] {
  const meta = cp.meta ?? ({} as Checkpoint["meta"]);
  const working = cp.working ?? ({} as Checkpoint["working"]);
  const created = parseDate(meta.created_at);
  const createdText = created ? clock.stamp(created) : "unknown time";
  const id = bareOrQuoted(meta.checkpoint_id, /^cp_\d{1,12}$/);
  const n = safeCount(meta.compaction_count);
  const lines = [kind === "resume" ? RESTORE_HEADER_RESUME : RESTORE_HEADER_POST_COMPACTION];
  const say = (short: string, long: string): number => lines.push(sq.compact ? short : long);
  if (kind === "resume") {
    say(`This is the state a previous session left at ${createdText}.`,
      `This is the state a previous session on this key left at ${createdText}; verify it before acting on it.`);
  }
  // bundled by the next session from the state files of one that died uncheckpointed
  if (cp.recovered && typeof cp.recovered === "object") {
    const at = parseDate(cp.recovered.state_updated_at);
    const atText = at ? clock.stamp(at) : "an unknown time";
    say("Recovered from the state files of a session that ended without a checkpoint.",
      `That session ended (crash, exit or /new) before a checkpoint held all its work: this state was recovered from its state files (last captured ${atText}).`);
  }
  if (sq.compact) {
    lines.push(`Checkpoint ${id} (${createdText})`);
  } else {
    const usage = meta.token_usage ?? ({} as Checkpoint["meta"]["token_usage"]);
    // no window recorded (a bundled previous-session state): no figure at all
    const context =
      Number.isFinite(usage.utilization) && Number.isFinite(usage.context_window) && usage.context_window > 0
        ? ` · context ${Math.round(usage.utilization * 100)}% of ${formatTokenCount(usage.context_window)}`
        : "";
    const trigger = bareOrQuoted(meta.trigger, /^[a-z0-9-]{1,20}$/);
    const countLabel = kind === "resume" ? "compactions in that session" : "compactions this session";
    lines.push(`Checkpoint ${id} (${trigger}, ${createdText})${context} · ${countLabel}: ${n}`);
  }
  lines.push(`Working on: ${working.topic ? quoteUntrusted(working.topic, sq.workingCap) : "(not recorded)"}`);
  lines.push(...stateLines(working, bareOrQuoted(working.status, /^[a-z_]{1,30}$/), sq.workingCap, sq.compact));
  // spec §5.5: the count alone does not make a session unhealthy, so the note says when /new is worth it
  if (kind !== "post-compaction" || n <= DEATH_SPIRAL_COMPACTIONS) return [lines, null];
  const note = `Note: ${n} compactions this session (more than ${DEATH_SPIRAL_COMPACTIONS}).`;
  return [lines, sq.compact ? note : `${note} A long session compacts often; only if compactions now come every turn or two, finish the current step and suggest /new to the user.`];
}

/** Optional sections go by RESTORE_DROP_PLAN, then kept lines are squeezed; then the frame, or nothing. */
export function renderCheckpointRestore(cp: Checkpoint, opts: RenderRestoreOptions): RenderedRestore {
  const maxChars = Number.isFinite(opts.maxTokens) ? Math.max(0, Math.floor(opts.maxTokens)) * 4 : 0;
  const clock = makeClock(opts.timeZone);
  const created = parseDate(cp.meta?.created_at);
  const extras = (opts.extraSections ?? []).filter((x) => x && Array.isArray(x.lines) && x.lines.length > 0);
  const sections = buildSections(cp, clock, created ? clock.parts(created).date : null, extras);

  const [top, warning] = frameLines(cp, opts.kind, clock, SQUEEZE_LEVELS[0]!);
  // everything but the body and the omitted line; the body is preceded by a blank line
  const fixedLen = joinedLength(top) + (warning ? warning.length + 1 : 0) + 1 + RESTORE_END_MARKER.length;
  const budget = new SectionBudget(sections, (body) => {
    const omitted = omittedLine(sections, false);
    return fixedLen + (body > 0 ? body + 1 : 0) + (omitted ? omitted.length + 1 : 0);
  });
  for (const { section, keep, budget: share } of RESTORE_DROP_PLAN) {
    const limit = share === "soft" ? Math.floor(maxChars * SOFT_SHARE) : maxChars;
    budget.drop(section, keep, limit);
  }

  const body = sections.flatMap(sectionLines);
  const assemble = (sq: Squeeze): string[] => {
    const [top, warning] = frameLines(cp, opts.kind, clock, sq);
    const note = sq.noNote ? null : omittedLine(sections, sq.compact);
    const lines = [...top, ...(body.length > 0 ? ["", ...body] : []), warning, note, RESTORE_END_MARKER];
    return lines.filter((l): l is string => l !== null);
  };
  let lines = assemble(SQUEEZE_LEVELS[0]!);
  for (const sq of SQUEEZE_LEVELS.slice(1)) if (joinedLength(lines) > maxChars) lines = assemble(sq);
  const omitted = sections.filter((s) => s.dropped > 0).map((s): string => s.key);
  // extras are dropped whole and from the front (not `tail`): the kept ones are the last
  let extrasKept = budget.byKey.get("extras")!.entries.length;
  if (joinedLength(lines) > maxChars) {
    // the frame alone (its header is the first line), or nothing when even that does not fit
    lines = [lines[0]!, RESTORE_END_MARKER];
    if (joinedLength(lines) > maxChars) lines = [];
    omitted.push("working");
    extrasKept = 0;
  }
  const text = lines.join("\n");
  const rendered: RenderedRestore = { text, tokens: estimateTextTokens(text), omitted };
  // only for callers that passed extra sections: the result stays as it was for the others
  if (opts.extraSections) rendered.omittedExtras = extras.slice(0, extras.length - extrasKept).map((x) => x.id ?? String(x.title));
  return rendered;
}
