/**
 * The restore block's section model (spec §8.2): a checkpoint turned into its sections' entries,
 * each captured string redacted, capped and quoted (quote.ts); render-restore.ts budgets and
 * assembles them.
 */
import { tryParseHandle } from "../artifacts/handle.js";
import type { Checkpoint, Decision, KeyExchange, ToolFailure, WorkCommand, WorkFile } from "../checkpoint/schema.js";
import { type Clock, parseDate } from "./clock.js";
import { ELLIPSIS, quoteUntrusted } from "./quote.js";
import { goalOutcome, OUTCOME_REQUESTS, requestOutcome } from "./turn-outcomes.js";
import type { RestoreExtraSection, RestoreSection } from "./sections.js";
import { BARE_PATH, commonRoot, foldPaths } from "../text/path-fold.js";
import { arr, safeCount } from "./field-read.js";

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
  command: 60,
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

// --- model of the block ----------------------------------------------------------------

export interface SectionState {
  /** full rendered lines (list sections), entries (inline/fold sections) or one block (raw) */
  entries: string[];
  dropped: number;
}

export const SHOW_HINT = "`openclaw-context show` prints the full checkpoint";

/** The folded "Files changed" line: bare paths folded under the root, others quoted after them. */
export class FileFold {
  constructor(readonly root: string | null) {}

  static of(paths: readonly string[]): FileFold {
    const bare = paths.filter((p) => BARE_PATH.test(p));
    return new FileFold(commonRoot(bare));
  }

  rel(p: string): string {
    return this.root && p.startsWith(this.root) && BARE_PATH.test(p) ? p.slice(this.root.length) : p;
  }

  /** A path as printed in a list line: bare relative path, or quoted. */
  display(p: string): string {
    return BARE_PATH.test(p) ? this.rel(p) : quoteUntrusted(p, CAP.file);
  }

  line(paths: readonly string[], total: number): string {
    const bare = paths.filter((p) => BARE_PATH.test(p)).map((p) => this.rel(p));
    const quoted = paths.filter((p) => !BARE_PATH.test(p)).map((p) => quoteUntrusted(p, CAP.file));
    const body = [bare.length > 0 ? foldPaths(bare) : "", ...quoted].filter(Boolean).join(", ");
    const head = `Files changed (${total}${this.root ? `, root ${this.root}` : ""}): `;
    return head + body;
  }
}

export interface Model {
  sections: Record<RestoreSection, SectionState>;
  fold: FileFold | null;
  filesTotal: number;
  /** ids of the extra sections, one per entry of `sections.extras` before any was dropped */
  extraIds: string[];
}

/** Read-only programs whose runs say nothing about the state of the work. */
const VIEW_PROGRAMS: ReadonlySet<string> = new Set([
  "grep", "rg", "egrep", "fgrep", "ag", "cat", "head", "tail", "less", "ls", "find", "fd", "sed", "awk", "wc",
  "echo", "printf", "pwd", "which", "sleep", "tree", "file", "stat", "diff", "sort", "uniq", "cut", "jq", "true",
]);

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function buildSections(cp: Checkpoint, clock: Clock, createdDate: string | null, extras: readonly RestoreExtraSection[]): Model {
  const st = (entries: string[]): SectionState => ({ entries, dropped: 0 });
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

  // --- ledger
  const ledgerFiles = work ? arr(work.files).filter((f) => f && typeof f.path === "string") : [];
  const ledgerPaths = ledgerFiles.map((f) => f.path);
  const known = new Set(ledgerPaths);
  // files the ledger missed (fileOps of a host without tool_result) still count as changed
  const extraModified = work ? arr(cp.resources?.files_modified).filter((p) => typeof p === "string" && !known.has(p)).reverse() : [];
  const changedPaths = [...ledgerPaths, ...extraModified];
  const fold = work ? FileFold.of(changedPaths) : null;
  const changeLine = (f: WorkFile): string => {
    const counts: string[] = [];
    if (f.deleted === true) counts.push("deleted");
    if (safeCount(f.writes) > 0) counts.push(plural(safeCount(f.writes), "write"));
    if (safeCount(f.edits) > 0) counts.push(plural(safeCount(f.edits), "edit"));
    if (safeCount(f.mentions) > 0) counts.push(`named in ${plural(safeCount(f.mentions), "request")}`);
    const t = timeOf(f.last);
    if (t) counts.push(`last ${t}`);
    // the declared names say what the work was about; the latest change gist what it did last
    const names = arr(f.names).filter((n) => typeof n === "string" && n !== "").slice(0, CAP.namesShown);
    const declared = names.length > 0 ? `; defines ${quoteUntrusted(names.map((n) => cutName(n)).join(", "), CAP.names)}` : "";
    const change = f.change ? `: ${quoteUntrusted(f.change, names.length > 0 ? CAP.changeWithNames : CAP.change)}` : "";
    return `- ${fold!.display(f.path)}: ${counts.join(", ")}${declared}${change}`;
  };
  const commandEntry = (c: WorkCommand): string => {
    const outcome = c.ok ? "ok" : typeof c.exit === "number" ? `failed (exit ${safeCount(c.exit)})` : "failed";
    const n = safeCount(c.runs);
    const failed = safeCount(c.failures);
    const runs = n > 1 ? ` ×${n}${failed > 0 ? ` (${failed} failed)` : ""}` : "";
    return `${quoteUntrusted(c.family, CAP.command)} ${outcome}${runs}`;
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
  const sections: Record<RestoreSection, SectionState> = {
    last_report: st(work?.last_report ? [quoteUntrusted(work.last_report, CAP.report)] : []),
    goal: st(goal && goal !== topic ? [quoteUntrusted(goal, CAP.goal) + goalOutcome(work, goal)] : []),
    // issue 25: the agent's own outcome of the newest earlier requests, as far as the cap allows
    requests: st(earlier.map((r, i) => `- ${quoteUntrusted(r, CAP.request)}${i < OUTCOME_REQUESTS ? requestOutcome(work, r) : ""}`)),
    extras: st(extraBlocks),
    files_changed: st(changedPaths),
    changes: st(ledgerFiles.map(changeLine)),
    commands: st(commands.map(commandEntry)),
    open_failures: st(work ? arr(work.open_failures).map(failureLine) : []),
    decisions: st([...arr(cp.decisions)].reverse().map(decisionLine)),
    thread_summary: st(summary),
    key_exchanges: st(arr(cp.thread?.key_exchanges).map(exchangeLine)),
    files_modified: st(work ? [] : arr(cp.resources?.files_modified).map((f) => quoteUntrusted(f, CAP.file))),
    files_read: st(arr(cp.resources?.files_read).map((f) => quoteUntrusted(f, CAP.file))),
    tools_used: st(arr(cp.resources?.tools_used).map((t) => quoteUntrusted(t, CAP.tool))),
    errors: st(work ? [] : arr(cp.thread?.errors).map(errorLine)),
    open_items: st(arr(cp.open_items).map((s) => `- ${quoteUntrusted(s, CAP.openItem)}`)),
    learnings: st(arr(cp.learnings).map((s) => `- ${quoteUntrusted(s, CAP.learning)}`)),
  };
  return { sections, fold, filesTotal: changedPaths.length, extraIds: shownExtras.map((x) => x.id ?? String(x.title)) };
}
