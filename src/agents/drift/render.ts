/** The drift report as text: names on disk quoted, commit ids validated hex; lists shortened to fit. */
import { quoteUntrusted } from "../inject/quote.js";
import { joinedLength as length, plural } from "../inject/section-model.js";
import type { RestoreExtraSection } from "../inject/render-restore.js";
import type { DriftReport, FileChange, FileDrift, GitDrift } from "./record.js";

export const DRIFT_TITLE = "Workspace changed since this checkpoint (check before relying on it):";
const PATH_CAP = 120;
const KINDS: readonly FileChange[] = ["changed", "deleted", "created", "unreadable"];
const LIST_LIMITS = [Infinity, 8, 4, 2, 1, 0];

const short = (oid: string | null): string => (oid && /^[0-9a-f]{7,64}$/.test(oid) ? oid.slice(0, 7) : "none");

const BY = { session: " (by the session's later work)", outside: " (not by the session)" };
const who = (f: FileDrift): string => (f.change === "changed" && f.by ? BY[f.by] : "");
const fileEntry = (f: FileDrift): string => `${quoteUntrusted(f.path, PATH_CAP)}${who(f)}`;

/** `show` renders a branch name: quoted for our own lines, as is when the renderer quotes the whole entry. */
function gitLine(g: GitDrift, show = (name: string): string => quoteUntrusted(name, 80)): string | null {
  if (g.repoGone) return "- git: the repository is no longer there";
  const parts: string[] = [];
  if (g.branch) {
    const name = (b: string | null) => (b === null ? "detached HEAD" : `branch ${show(b)}`);
    parts.push(`${name(g.branch.from)} -> ${name(g.branch.to)}`);
  }
  if (g.head) {
    const ids = `${short(g.head.from)} -> ${short(g.head.to)}`;
    if (g.head.ahead !== null) parts.push(`HEAD +${plural(g.head.ahead, "commit")} (${ids})`);
    else if (g.head.behind !== null) parts.push(`HEAD back ${plural(g.head.behind, "commit")} (${ids})`);
    else parts.push(`HEAD moved (${ids})`);
  }
  if (g.dirty) parts.push(`tree was ${g.dirty.from ? "dirty" : "clean"}, now ${g.dirty.to ? "dirty" : "clean"}`);
  else if (parts.length > 0 && g.dirtyNow !== null) parts.push(`tree ${g.dirtyNow ? "dirty" : "clean"}`);
  return parts.length > 0 ? `- git: ${parts.join("; ")}` : null;
}

/** The changed files by kind, kinds without files left out. */
function byKind(report: DriftReport): Array<[FileChange, FileDrift[]]> {
  const groups = KINDS.map((kind): [FileChange, FileDrift[]] => [kind, report.files.filter((f) => f.change === kind)]);
  return groups.filter(([, files]) => files.length > 0);
}

function linesAt(report: DriftReport, limit: number): string[] {
  const lines = byKind(report).map(([kind, files]) => {
    if (limit === 0) return `- ${kind}: ${plural(files.length, "file")}`;
    const more = files.length - Math.min(limit, files.length);
    return `- ${kind}: ${files.slice(0, limit).map(fileEntry).join(", ")}${more > 0 ? `, +${more} more` : ""}`;
  });
  const g = report.git ? gitLine(report.git) : null;
  return [DRIFT_TITLE, ...lines, ...(g ? [g] : [])];
}

/** The section's lines within `maxChars` (joined with "\n"), or [] when nothing changed or nothing fits. */
export function renderDriftSection(report: DriftReport, maxChars: number): string[] {
  if (!report.drifted) return [];
  const gone = (where: string) => [`Workspace changed since this checkpoint: the working directory${where} no longer exists.`];
  const candidates = report.workspaceFound
    ? LIST_LIMITS.map((limit) => linesAt(report, limit))
    : [gone(` ${quoteUntrusted(report.cwd, 160)}`), gone("")];
  return candidates.find((lines) => length(lines) <= maxChars) ?? [];
}

/** Title of the drift section when the renderer lays it out (plain text ending in ":"). */
export const DRIFT_EXTRA_TITLE = "Workspace changed since the checkpoint:";
/** The section's id in RenderedRestore.omittedExtras. */
export const DRIFT_SECTION_ID = "drift";
/** The renderer caps each entry at 200 code points: lists are shortened below that. */
const EXTRA_LINE_MAX = 180;

function plainList(items: readonly string[], head: string): string {
  let line = head;
  let shown = 0;
  for (const item of items) {
    const next = `${line}${shown > 0 ? ", " : " "}${item}`;
    const rest = items.length - shown - 1;
    if (next.length + (rest > 0 ? 12 : 0) > EXTRA_LINE_MAX && shown > 0) break;
    line = next;
    shown++;
  }
  return shown < items.length ? `${line}, +${items.length - shown} more` : line;
}

/** The report as an extra section (plain names: the renderer quotes each entry whole); null: nothing moved. */
export function driftExtraSection(report: DriftReport): RestoreExtraSection | null {
  if (!report.drifted) return null;
  if (!report.workspaceFound) return { id: DRIFT_SECTION_ID, title: DRIFT_EXTRA_TITLE, lines: [`the working directory ${report.cwd} no longer exists`] };
  const lines = byKind(report).map(([kind, files]) => plainList(files.map((f) => `${f.path}${who(f)}`), `${kind}:`));
  const g = report.git ? gitLine(report.git, (b) => b) : null;
  if (g) lines.push(g.slice(2));
  return lines.length > 0 ? { id: DRIFT_SECTION_ID, title: DRIFT_EXTRA_TITLE, lines } : null;
}
