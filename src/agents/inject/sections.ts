/** The restore block's sections (titles, order, drop plan), the extra sections it takes, what it returns. */
import { tryParseHandle } from "../artifacts/handle.js";
import { FETCH_TOOL_NAME } from "../artifacts/preview.js";
import { type ArtifactRef, LINES_RE } from "../checkpoint/schema.js";
import type { Layout } from "./section-model.js";

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

/** How a restore section prints (section-model.ts); `whole`: it goes whole and is named without a count when dropped. */
export interface SectionSpec {
  title: string;
  layout: Layout;
  omittedLabel: string;
  /** separator of inline entries */
  sep?: string;
  whole?: true;
  /** its entries go from the tail (its first entries matter most) */
  tail?: true;
}

const SPEC = {
  last_report: { title: "Agent's last report: ", layout: "inline", omittedLabel: "last report", whole: true },
  goal: { title: "Goal (first request): ", layout: "inline", omittedLabel: "goal", whole: true },
  requests: { title: "Earlier requests (newest first):", layout: "list", omittedLabel: "earlier requests", tail: true },
  // each entry a block of lines, title included
  extras: { title: "", layout: "list", omittedLabel: "extra sections", whole: true },
  files_changed: { title: "", layout: "fold", omittedLabel: "changed files", tail: true },
  changes: { title: "Main changes (most important first):", layout: "list", omittedLabel: "main changes", tail: true },
  commands: { title: "Commands (latest outcome): ", layout: "inline", sep: "; ", omittedLabel: "commands", tail: true },
  open_failures: {
    title: "Open failures (unresolved at this point; do not retry blindly):",
    layout: "list",
    omittedLabel: "open failures",
  },
  decisions: { title: "Decisions made (newest first):", layout: "list", omittedLabel: "decisions", tail: true },
  thread_summary: { title: "Thread: ", layout: "inline", omittedLabel: "thread summary", whole: true },
  key_exchanges: { title: "Key exchanges:", layout: "list", omittedLabel: "exchanges" },
  files_modified: { title: "Files modified: ", layout: "inline", omittedLabel: "modified files" },
  files_read: { title: "Files read: ", layout: "inline", omittedLabel: "read files" },
  tools_used: { title: "Tools used: ", layout: "inline", omittedLabel: "tools" },
  errors: { title: "Tool failures (do not retry blindly):", layout: "list", omittedLabel: "tool failures" },
  open_items: { title: "Open items:", layout: "list", omittedLabel: "open items", tail: true },
  learnings: {
    title: "Learnings (consider storing to long-term memory via memory_store):",
    layout: "list",
    omittedLabel: "learnings",
    tail: true,
  },
} satisfies Record<string, SectionSpec>;

/** The sections that may be trimmed, in block order. */
export type RestoreSection = keyof typeof SPEC;
export const SECTION_SPEC: Record<RestoreSection, SectionSpec> = SPEC;

export const SECTION_ORDER = Object.keys(SECTION_SPEC) as readonly RestoreSection[];

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

/** Artifacts the "Stored outputs" extra section shows at most (those a checkpoint points at, newest first). */
const RESTORE_MAX_LINES = 3;

export const ARTIFACTS_EXTRA_TITLE = `Stored outputs (read with ${FETCH_TOOL_NAME}):`;
/** The section's id in RenderedRestore.omittedExtras. */
export const ARTIFACTS_SECTION_ID = "artifacts";

/** The stored outputs as an extra section: the renderer quotes each entry and re-checks its handle. */
export function artifactsExtraSection(refs: readonly ArtifactRef[] | undefined): RestoreExtraSection | null {
  const shown = (refs ?? []).filter((r) => tryParseHandle(r.handle) !== null).slice(0, RESTORE_MAX_LINES);
  if (shown.length === 0) return null;
  return {
    id: ARTIFACTS_SECTION_ID,
    title: ARTIFACTS_EXTRA_TITLE,
    // a partial read names its lines: two reads of one file are told apart
    lines: shown.map((r) => `${[...r.tool].slice(0, 24).join("")} ${tailOf(r.target, 80)}${r.lines && LINES_RE.test(r.lines) ? ` lines ${r.lines}` : ""} (${Math.max(1, Math.round(r.bytes / 1024))} KB)`),
    handles: shown.map((r) => r.handle),
  };
}

/** A long target keeps its end (the file name, the last words of a command), not its start. */
function tailOf(target: string, max: number): string {
  const chars = [...target];
  return chars.length <= max ? target : `…${chars.slice(chars.length - (max - 1)).join("")}`;
}
