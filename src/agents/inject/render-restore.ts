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

import type { Checkpoint } from "../checkpoint/schema.js";
import { type Clock, makeClock, parseDate } from "./clock.js";
import { DROP_FROM_END, RESTORE_DROP_PLAN, SOFT_SHARE } from "./drop-plan.js";
import { RESTORE_END_MARKER, RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "./markers.js";
import { quoteUntrusted } from "./quote.js";
import { type RenderedRestore, type RenderRestoreOptions, type RestoreSection, SECTION_SPEC } from "./sections.js";
import { estimateTextTokens } from "../text/token-estimate.js";
import { CAP, SHOW_HINT, bareOrQuoted, buildSections } from "./restore-model.js";
import { type Section, SectionBudget, safeCount } from "./section-model.js";

/** `meta.compaction_count` above this adds the death-spiral warning (spec §5.5). */
export const DEATH_SPIRAL_COMPACTIONS = 3;

// --- numbers -------------------------------------------------------------------------------

function formatWindow(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return "?";
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(Math.round(n));
}


function omittedLine(sections: readonly Section<RestoreSection>[], compact: boolean): string | null {
  const parts: string[] = [];
  for (const s of sections) {
    if (s.dropped === 0) continue;
    const { omittedLabel: label, whole } = SECTION_SPEC[s.key];
    parts.push(whole ? label : `${s.dropped}${s.entries.length > 0 ? " more" : ""} ${label}`);
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
  // issue 11: bundled by the next session from the state files of one that died uncheckpointed
  if (cp.recovered && typeof cp.recovered === "object") {
    const at = parseDate(cp.recovered.state_updated_at);
    const atText = at ? (({ date, time }) => `${date} ${time} ${clock.zoneLabel}`)(clock.parts(at)) : "an unknown time";
    lines.push(
      sq.compact
        ? "Recovered from the state files of a session that ended without a checkpoint."
        : `That session ended (crash, exit or /new) before a checkpoint held all its work: this state was recovered from its state files (last captured ${atText}).`,
    );
  }
  if (sq.compact) {
    lines.push(`Checkpoint ${id} (${createdText})`);
  } else {
    const usage = meta.token_usage ?? ({} as Checkpoint["meta"]["token_usage"]);
    // no window recorded (a bundled previous-session state knows no token count): no figure at all
    const context =
      typeof usage.utilization === "number" && Number.isFinite(usage.utilization) && usage.context_window > 0
        ? ` · context ${Math.round(usage.utilization * 100)}% of ${formatWindow(usage.context_window)}`
        : "";
    const trigger = bareOrQuoted(meta.trigger, /^[a-z0-9-]{1,20}$/);
    const countLabel = opts.kind === "resume" ? "compactions in that session" : "compactions this session";
    lines.push(`Checkpoint ${id} (${trigger}, ${createdText})${context} · ${countLabel}: ${compactions}`);
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

/**
 * spec §5.5's rule (more than DEATH_SPIRAL_COMPACTIONS compactions) with what it measured: the
 * count alone does not make a session unhealthy, so the note says when /new is worth it
 * (compactions every turn or two) instead of telling the agent to abandon the session.
 */
function warningLine(cp: Checkpoint, opts: RenderRestoreOptions, sq: Squeeze): string | null {
  const n = safeCount(cp.meta?.compaction_count);
  // Only meaningful inside the compacting session; a resumed session starts at zero.
  if (opts.kind !== "post-compaction" || n <= DEATH_SPIRAL_COMPACTIONS) return null;
  return sq.compact
    ? `Note: ${n} compactions this session (more than ${DEATH_SPIRAL_COMPACTIONS}).`
    : `Note: ${n} compactions this session (more than ${DEATH_SPIRAL_COMPACTIONS}). A long session compacts often; only if compactions now come every turn or two, finish the current step and suggest /new to the user.`;
}

// --- budgeted assembly ---------------------------------------------------------------------

/** Length of `lines.join("\n")` without building it. */
const joinedLength = (lines: readonly string[]): number =>
  lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);

function assemble(top: string[], budget: SectionBudget<RestoreSection>, warning: string | null, omitted: string | null): string[] {
  const body = budget.lines();
  const lines = [...top];
  if (body.length > 0) lines.push("", ...body);
  if (warning) lines.push(warning);
  if (omitted) lines.push(omitted);
  lines.push(RESTORE_END_MARKER);
  return lines;
}

/**
 * Render `cp` as a restore block of at most `maxTokens` tokens (chars / 4). Optional sections
 * go first, by RESTORE_DROP_PLAN (soft steps down to SOFT_SHARE of the cap, hard steps down
 * to the cap); then the kept lines are squeezed (shorter working fields, compact
 * meta/warning/note); below that only header + end marker remain, and below ~16 tokens the
 * text is empty.
 */
export function renderCheckpointRestore(cp: Checkpoint, opts: RenderRestoreOptions): RenderedRestore {
  const maxChars = Number.isFinite(opts.maxTokens) ? Math.max(0, Math.floor(opts.maxTokens)) * 4 : 0;
  const softChars = Math.floor(maxChars * SOFT_SHARE);
  const clock = makeClock(opts.timeZone);
  const created = parseDate(cp.meta?.created_at);
  const model = buildSections(cp, clock, created ? clock.parts(created).date : null, opts.extraSections ?? []);
  const sections = model.sections;

  let sq: Squeeze = SQUEEZE_LEVELS[0] as Squeeze;
  const top = renderFixedTop(cp, opts, clock, sq);
  const warning = warningLine(cp, opts, sq);

  // everything but the body and the omitted line; the body is preceded by a blank line
  const fixedLen = joinedLength(top) + (warning ? warning.length + 1 : 0) + 1 + RESTORE_END_MARKER.length;
  const budget = new SectionBudget(sections, (body) => {
    const omitted = omittedLine(sections, false);
    return fixedLen + (body > 0 ? body + 1 : 0) + (omitted ? omitted.length + 1 : 0);
  });
  for (const step of RESTORE_DROP_PLAN) {
    budget.drop(step.section, step.keep, step.budget === "soft" ? softChars : maxChars, DROP_FROM_END.has(step.section));
  }

  let lines = assemble(top, budget, warning, omittedLine(sections, false));
  // Only the always-kept lines are left: squeeze them, level by level.
  for (let i = 1; i < SQUEEZE_LEVELS.length && joinedLength(lines) > maxChars; i++) {
    sq = SQUEEZE_LEVELS[i] as Squeeze;
    const note = sq.noNote ? null : omittedLine(sections, sq.compact);
    lines = assemble(renderFixedTop(cp, opts, clock, sq), budget, warningLine(cp, opts, sq), note);
  }
  const omitted: string[] = sections.filter((s) => s.dropped > 0).map((s) => s.key);
  // extras are dropped whole and from the front (not in DROP_FROM_END): the kept ones are the last
  let extrasKept = budget.byKey.get("extras")!.entries.length;
  if (joinedLength(lines) > maxChars) {
    // Last resort: the frame alone, or nothing at all when even that does not fit.
    const header = opts.kind === "resume" ? RESTORE_HEADER_RESUME : RESTORE_HEADER_POST_COMPACTION;
    lines = [header, RESTORE_END_MARKER];
    omitted.push("working");
    extrasKept = 0;
    if (joinedLength(lines) > maxChars) lines = [];
  }
  const text = lines.join("\n");
  const rendered: RenderedRestore = { text, tokens: estimateTextTokens(text), omitted };
  // only for callers that passed extra sections: the result stays as it was for the others
  if (opts.extraSections) rendered.omittedExtras = model.extraIds.slice(0, model.extraIds.length - extrasKept);
  return rendered;
}
