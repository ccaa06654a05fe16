/**
 * Restore block (spec §8.2): renders a checkpoint into the agent-readable text that is
 * injected as a system event after compaction, or when a new session resumes a key.
 *
 * Two guarantees, both tested:
 * - Captured text cannot shape the block. Every captured string is redacted, collapsed to
 *   one line (line/paragraph separators, control, zero-width and bidi characters removed),
 *   length-capped and emitted as a JSON-style quoted string, so no line starts with
 *   captured content: it cannot forge a header, the end marker or a `System:` line.
 * - `tokens` (chars / 4) never exceeds `maxTokens`. Content is dropped in whole lines
 *   (or whole list entries) by priority, and the block says what was left out.
 */

import type { Checkpoint, Decision, KeyExchange, ToolFailure } from "./context-checkpoint-schema.js";
import { redactSecrets } from "./redact.js";
import { visibleText } from "./visible-text.js";
import { estimateTextTokens } from "./token-estimate.js";

export const RESTORE_HEADER_POST_COMPACTION = "[Post-compaction checkpoint restore]";
export const RESTORE_HEADER_RESUME = "[Session resume checkpoint restore]";
export const RESTORE_END_MARKER = "[End of checkpoint restore]";
/** `meta.compaction_count` above this adds the death-spiral warning (spec §5.5). */
export const DEATH_SPIRAL_COMPACTIONS = 3;

export interface RenderRestoreOptions {
  kind: "post-compaction" | "resume";
  maxTokens: number;
  /** IANA zone for times (default UTC); an unknown zone falls back to UTC */
  timeZone?: string;
}

export interface RenderedRestore {
  text: string;
  tokens: number;
  /** names of sections that were dropped in whole or in part to fit `maxTokens` */
  omitted: string[];
}

/** Sections that may be trimmed, in the order they appear in the block. */
export type RestoreSection =
  | "decisions"
  | "thread_summary"
  | "key_exchanges"
  | "files_modified"
  | "files_read"
  | "tools_used"
  | "errors"
  | "open_items"
  | "learnings";

/**
 * Drop plan, lowest priority first: each step drops entries of one section (oldest
 * first, or from the end for learnings and open items, whose first entries matter most)
 * until only `keep` remain or the block fits. Working state, header, warning and end
 * marker are never in the plan.
 */
export const RESTORE_DROP_PLAN: ReadonlyArray<{ section: RestoreSection; keep: number }> = [
  { section: "files_read", keep: 0 },
  { section: "tools_used", keep: 0 },
  { section: "key_exchanges", keep: 0 },
  { section: "learnings", keep: 2 },
  { section: "thread_summary", keep: 0 },
  { section: "decisions", keep: 5 },
  { section: "errors", keep: 3 },
  { section: "files_modified", keep: 5 },
  { section: "open_items", keep: 3 },
  { section: "learnings", keep: 0 },
  { section: "files_modified", keep: 0 },
  { section: "decisions", keep: 2 },
  { section: "errors", keep: 0 },
  { section: "open_items", keep: 1 },
  { section: "decisions", keep: 0 },
  { section: "open_items", keep: 0 },
];

/** Sections whose LAST entries go first (the first ones are the most important). */
const DROP_FROM_END: ReadonlySet<RestoreSection> = new Set(["learnings", "open_items"]);

/** Per-entry length caps, in code points (quotes and escapes not counted). */
const CAP = {
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
} as const;

const ELLIPSIS = "…";

// --- untrusted text → one safe quoted token -------------------------------------------

/** Line breaks of every kind plus tab/vertical tab/form feed: become a space. */
const LINE_BREAKS = /[\r\n\t\v\f\u0085\u2028\u2029]/g;

/**
 * Collapse to one trimmed line that shows only what a person would see: every invisible or
 * format code point removed by Unicode class (see visible-text.ts), lone surrogates -> U+FFFD.
 */
export function toSingleLine(text: string): string {
  return visibleText(text.replace(LINE_BREAKS, " "))
    .replace(/\s+/g, " ")
    .trim();
}

function truncateCodePoints(text: string, max: number): string {
  if (text.length <= max) return text; // UTF-16 length >= code points
  let count = 0;
  let end = 0;
  for (const ch of text) {
    if (count === max - 1) {
      // Is there more than one code point left? Then cut here and add the ellipsis.
      if (text.length - end > ch.length) return text.slice(0, end).trimEnd() + ELLIPSIS;
      return text;
    }
    count++;
    end += ch.length;
  }
  return text;
}

/** Redacted, single-line, capped, JSON-style double-quoted. Safe to put anywhere in a line. */
export function quoteUntrusted(value: unknown, maxCodePoints: number): string {
  const raw = typeof value === "string" ? value : value == null ? "" : String(value);
  // redacted before and after normalization (removing invisible characters can join a token)
  const line = truncateCodePoints(redactSecrets(toSingleLine(redactSecrets(raw))), Math.max(1, maxCodePoints));
  return `"${line.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

// --- times and numbers -----------------------------------------------------------------

interface Clock {
  zoneLabel: string;
  parts(d: Date): { date: string; time: string };
}

function makeClock(timeZone: string | undefined): Clock {
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
  let fmt: Intl.DateTimeFormat;
  let zoneLabel = "UTC";
  try {
    fmt = build(timeZone ?? "UTC");
    // The zone name is host-provided config, but keep it to a token-like label.
    if (timeZone && /^[A-Za-z0-9_+\-/]{1,64}$/.test(timeZone)) zoneLabel = timeZone;
    else if (timeZone) fmt = build("UTC");
  } catch {
    fmt = build("UTC"); // unknown zone: render in UTC and say so
  }
  return {
    zoneLabel,
    parts(d) {
      const p: Record<string, string> = {};
      for (const part of fmt.formatToParts(d)) p[part.type] = part.value;
      return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
    },
  };
}

function parseDate(iso: unknown): Date | null {
  if (typeof iso !== "string") return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

function formatWindow(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return "?";
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(Math.round(n));
}

function safeCount(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

/** Known enum/id values are printed bare; anything else is quoted like captured text. */
function bareOrQuoted(value: unknown, allowed: RegExp): string {
  return typeof value === "string" && allowed.test(value) ? value : quoteUntrusted(value, 40);
}

// --- model of the block ----------------------------------------------------------------

interface SectionState {
  /** full rendered lines (list sections) or entries (inline sections) */
  entries: string[];
  dropped: number;
}

type Layout = "list" | "inline" | "single";

const SECTION_SPEC: Record<RestoreSection, { title: string; layout: Layout; omittedLabel: string }> = {
  decisions: { title: "Decisions made:", layout: "list", omittedLabel: "decisions" },
  thread_summary: { title: "Thread: ", layout: "single", omittedLabel: "thread summary" },
  key_exchanges: { title: "Key exchanges:", layout: "list", omittedLabel: "exchanges" },
  files_modified: { title: "Files modified: ", layout: "inline", omittedLabel: "modified files" },
  files_read: { title: "Files read: ", layout: "inline", omittedLabel: "read files" },
  tools_used: { title: "Tools used: ", layout: "inline", omittedLabel: "tools" },
  errors: { title: "Tool failures (do not retry blindly):", layout: "list", omittedLabel: "tool failures" },
  open_items: { title: "Open items:", layout: "list", omittedLabel: "open items" },
  learnings: {
    title: "Learnings (consider storing to long-term memory via memory_store):",
    layout: "list",
    omittedLabel: "learnings",
  },
};

const SECTION_ORDER: readonly RestoreSection[] = [
  "decisions",
  "thread_summary",
  "key_exchanges",
  "files_modified",
  "files_read",
  "tools_used",
  "errors",
  "open_items",
  "learnings",
];

const SHOW_HINT = "`openclaw-context show` prints the full checkpoint";

function sectionLines(name: RestoreSection, s: SectionState): string[] {
  if (s.entries.length === 0) return [];
  const spec = SECTION_SPEC[name];
  if (spec.layout === "list") return [spec.title, ...s.entries];
  if (spec.layout === "inline") return [spec.title + s.entries.join(", ")];
  return [spec.title + (s.entries[0] ?? "")];
}

function omittedLine(sections: Record<RestoreSection, SectionState>, compact: boolean): string | null {
  const parts: string[] = [];
  for (const name of SECTION_ORDER) {
    const s = sections[name];
    if (s.dropped === 0) continue;
    const label = SECTION_SPEC[name].omittedLabel;
    parts.push(name === "thread_summary" ? label : `${s.dropped}${s.entries.length > 0 ? " more" : ""} ${label}`);
  }
  if (parts.length === 0) return null;
  return compact ? `(more not shown: ${SHOW_HINT})` : `(not shown: ${parts.join(", ")}; ${SHOW_HINT})`;
}

/** How hard the always-kept lines are squeezed when the optional ones are all gone. */
interface Squeeze {
  workingCap: number;
  compact: boolean;
  /** last resort before giving up the working lines: drop the "not shown" note */
  noNote?: boolean;
}

const SQUEEZE_LEVELS: readonly Squeeze[] = [
  { workingCap: CAP.working, compact: false },
  { workingCap: 100, compact: false },
  { workingCap: 40, compact: false },
  { workingCap: 40, compact: true },
  { workingCap: 16, compact: true },
  { workingCap: 6, compact: true },
  { workingCap: 6, compact: true, noNote: true },
];

function renderFixedTop(cp: Checkpoint, opts: RenderRestoreOptions, clock: Clock, sq: Squeeze): string[] {
  const meta = cp.meta ?? ({} as Checkpoint["meta"]);
  const working = cp.working ?? ({} as Checkpoint["working"]);
  const created = parseDate(meta.created_at);
  const createdText = created
    ? (({ date, time }) => `${date} ${time} ${clock.zoneLabel}`)(clock.parts(created))
    : "unknown time";
  const id = bareOrQuoted(meta.checkpoint_id, /^cp_\d{1,12}$/);
  const compactions = safeCount(meta.compaction_count);
  const lines: string[] = [];
  if (opts.kind === "resume") {
    lines.push(RESTORE_HEADER_RESUME);
    lines.push(
      sq.compact
        ? `This is the state a previous session left at ${createdText}.`
        : `This is the state a previous session on this key left at ${createdText}; verify it before acting on it.`,
    );
  } else {
    lines.push(RESTORE_HEADER_POST_COMPACTION);
  }
  if (sq.compact) {
    lines.push(`Checkpoint ${id} (${createdText})`);
  } else {
    const usage = meta.token_usage ?? ({} as Checkpoint["meta"]["token_usage"]);
    const util =
      typeof usage.utilization === "number" && Number.isFinite(usage.utilization)
        ? `${Math.round(usage.utilization * 100)}%`
        : "?%";
    const trigger = bareOrQuoted(meta.trigger, /^[a-z0-9-]{1,20}$/);
    const countLabel = opts.kind === "resume" ? "compactions in that session" : "compactions this session";
    lines.push(
      `Checkpoint ${id} (${trigger}, ${createdText}) · context ${util} of ${formatWindow(usage.context_window)} · ${countLabel}: ${compactions}`,
    );
  }
  lines.push(`Working on: ${working.topic ? quoteUntrusted(working.topic, sq.workingCap) : "(not recorded)"}`);
  lines.push(`Status: ${bareOrQuoted(working.status, /^[a-z_]{1,30}$/)}`);
  lines.push(`Next action: ${working.next_action ? quoteUntrusted(working.next_action, sq.workingCap) : "(not recorded)"}`);
  if (working.interrupted === true) {
    const call = working.last_tool_call;
    lines.push(
      call && !sq.compact
        ? `Interrupted: yes — last tool call: ${quoteUntrusted(call.name, CAP.toolName)} ${quoteUntrusted(call.params_summary, Math.min(CAP.toolParams, sq.workingCap))}`
        : "Interrupted: yes",
    );
  }
  return lines;
}

function warningLine(cp: Checkpoint, opts: RenderRestoreOptions, sq: Squeeze): string | null {
  const n = safeCount(cp.meta?.compaction_count);
  // Only meaningful inside the compacting session; a resumed session starts at zero.
  if (opts.kind !== "post-compaction" || n <= DEATH_SPIRAL_COMPACTIONS) return null;
  return sq.compact
    ? `WARNING: ${n} compactions this session; finish this step, then /new.`
    : `WARNING: this session has compacted ${n} times and is at risk of a compaction loop. Finish the current step, save anything important, and start a fresh session with /new.`;
}

function buildSections(cp: Checkpoint, clock: Clock, createdDate: string | null): Record<RestoreSection, SectionState> {
  const st = (entries: string[]): SectionState => ({ entries, dropped: 0 });
  const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
  const decisionLine = (d: Decision): string => {
    const when = parseDate(d?.when);
    let suffix = "";
    if (when) {
      const { date, time } = clock.parts(when);
      suffix = date === createdDate ? ` (${time})` : ` (${date} ${time})`;
    }
    return `- ${quoteUntrusted(d?.what, CAP.decision)}${suffix}`;
  };
  const exchangeLine = (x: KeyExchange): string =>
    `- ${x?.role === "user" ? "user" : "agent"}: ${quoteUntrusted(x?.gist, CAP.exchange)}`;
  const errorLine = (e: ToolFailure): string => {
    const target = e?.target ? ` ${quoteUntrusted(e.target, CAP.errorTarget)}` : "";
    return `- ${quoteUntrusted(e?.tool, CAP.tool)}${target}: ${quoteUntrusted(e?.error, CAP.error)}`;
  };
  const summary = cp.thread?.summary ? [quoteUntrusted(cp.thread.summary, CAP.summary)] : [];
  return {
    decisions: st(arr(cp.decisions).map(decisionLine)),
    thread_summary: st(summary),
    key_exchanges: st(arr(cp.thread?.key_exchanges).map(exchangeLine)),
    files_modified: st(arr(cp.resources?.files_modified).map((f) => quoteUntrusted(f, CAP.file))),
    files_read: st(arr(cp.resources?.files_read).map((f) => quoteUntrusted(f, CAP.file))),
    tools_used: st(arr(cp.resources?.tools_used).map((t) => quoteUntrusted(t, CAP.tool))),
    errors: st(arr(cp.thread?.errors).map(errorLine)),
    open_items: st(arr(cp.open_items).map((s) => `- ${quoteUntrusted(s, CAP.openItem)}`)),
    learnings: st(arr(cp.learnings).map((s) => `- ${quoteUntrusted(s, CAP.learning)}`)),
  };
}

// --- budgeted assembly ---------------------------------------------------------------------

/** Length of `lines.join("\n")` without building it. */
const joinedLength = (lines: readonly string[]): number =>
  lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);

function sectionLength(name: RestoreSection, s: SectionState): number {
  if (s.entries.length === 0) return 0;
  const spec = SECTION_SPEC[name];
  const entries = s.entries.reduce((n, e) => n + e.length, 0);
  if (spec.layout === "list") return spec.title.length + entries + s.entries.length; // + newlines between
  if (spec.layout === "inline") return spec.title.length + entries + 2 * (s.entries.length - 1);
  return spec.title.length + entries;
}

function assemble(
  top: string[],
  sections: Record<RestoreSection, SectionState>,
  warning: string | null,
  omitted: string | null,
): string[] {
  const body = SECTION_ORDER.flatMap((name) => sectionLines(name, sections[name]));
  const lines = [...top];
  if (body.length > 0) lines.push("", ...body);
  if (warning) lines.push(warning);
  if (omitted) lines.push(omitted);
  lines.push(RESTORE_END_MARKER);
  return lines;
}

/**
 * Render `cp` as a restore block of at most `maxTokens` tokens (chars / 4). Optional sections
 * go first (RESTORE_DROP_PLAN); then the kept lines are squeezed (shorter working fields,
 * compact meta/warning/note; about 65 tokens still hold the working lines and the warning);
 * below that only header + end marker remain, and below ~16 tokens the text is empty.
 */
export function renderCheckpointRestore(cp: Checkpoint, opts: RenderRestoreOptions): RenderedRestore {
  const maxChars = Number.isFinite(opts.maxTokens) ? Math.max(0, Math.floor(opts.maxTokens)) * 4 : 0;
  const clock = makeClock(opts.timeZone);
  const created = parseDate(cp.meta?.created_at);
  const sections = buildSections(cp, clock, created ? clock.parts(created).date : null);

  let sq: Squeeze = SQUEEZE_LEVELS[0] as Squeeze;
  const top = renderFixedTop(cp, opts, clock, sq);
  const warning = warningLine(cp, opts, sq);

  // Length of everything except the omitted line, kept up to date as entries are dropped.
  const fixedLen = joinedLength(top) + (warning ? warning.length + 1 : 0) + 1 + RESTORE_END_MARKER.length;
  let bodyLen = 0;
  let bodyLines = 0;
  for (const name of SECTION_ORDER) {
    const n = sectionLength(name, sections[name]);
    if (n > 0) {
      bodyLen += n;
      bodyLines++;
    }
  }
  const total = (): number => {
    const omitted = omittedLine(sections, false);
    // body sections are preceded by a blank line and separated by newlines
    const body = bodyLines > 0 ? bodyLen + bodyLines + 1 : 0;
    return fixedLen + body + (omitted ? omitted.length + 1 : 0);
  };

  for (const step of RESTORE_DROP_PLAN) {
    const s = sections[step.section];
    while (s.entries.length > step.keep && total() > maxChars) {
      const before = sectionLength(step.section, s);
      if (DROP_FROM_END.has(step.section)) s.entries.pop();
      else s.entries.shift();
      s.dropped++;
      const after = sectionLength(step.section, s);
      bodyLen += after - before;
      if (after === 0) bodyLines--;
    }
  }

  let lines = assemble(top, sections, warning, omittedLine(sections, false));
  // Only the always-kept lines are left: squeeze them, level by level.
  for (let i = 1; i < SQUEEZE_LEVELS.length && joinedLength(lines) > maxChars; i++) {
    sq = SQUEEZE_LEVELS[i] as Squeeze;
    const note = sq.noNote ? null : omittedLine(sections, sq.compact);
    lines = assemble(renderFixedTop(cp, opts, clock, sq), sections, warningLine(cp, opts, sq), note);
  }
  const omitted: string[] = SECTION_ORDER.filter((name) => sections[name].dropped > 0);
  if (joinedLength(lines) > maxChars) {
    // Last resort: the frame alone, or nothing at all when even that does not fit.
    const header = opts.kind === "resume" ? RESTORE_HEADER_RESUME : RESTORE_HEADER_POST_COMPACTION;
    lines = [header, RESTORE_END_MARKER];
    omitted.push("working");
    if (joinedLength(lines) > maxChars) lines = [];
  }
  const text = lines.join("\n");
  return { text, tokens: estimateTextTokens(text), omitted };
}
