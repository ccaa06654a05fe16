/**
 * What a restore block is made of: the sections the renderer may trim (their titles, layout and
 * order), the extra sections other features hand it, and what the renderer hands back.
 */
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
  /**
   * Optional sections from other features (e.g. workspace drift), placed after the working
   * lines and budgeted by the same plan: they go before the ledger's details when space runs out.
   */
  extraSections?: RestoreExtraSection[];
}

export interface RenderedRestore {
  text: string;
  tokens: number;
  /** names of sections that were dropped in whole or in part to fit `maxTokens` */
  omitted: string[];
  /**
   * Ids of the extra sections left out of `text` (each goes whole), in the order given; set only
   * when `extraSections` was passed, so a caller learns whether its section made it without
   * searching the text.
   */
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
}

const SPEC = {
  last_report: { title: "Agent's last report: ", layout: "inline", omittedLabel: "last report", whole: true },
  goal: { title: "Goal (first request): ", layout: "inline", omittedLabel: "goal", whole: true },
  requests: { title: "Earlier requests (newest first):", layout: "list", omittedLabel: "earlier requests" },
  // each entry a block of lines, title included
  extras: { title: "", layout: "list", omittedLabel: "extra sections", whole: true },
  files_changed: { title: "", layout: "fold", omittedLabel: "changed files" },
  changes: { title: "Main changes (most important first):", layout: "list", omittedLabel: "main changes" },
  commands: { title: "Commands (latest outcome): ", layout: "inline", sep: "; ", omittedLabel: "commands" },
  open_failures: {
    title: "Open failures (unresolved at this point; do not retry blindly):",
    layout: "list",
    omittedLabel: "open failures",
  },
  decisions: { title: "Decisions made (newest first):", layout: "list", omittedLabel: "decisions" },
  thread_summary: { title: "Thread: ", layout: "inline", omittedLabel: "thread summary", whole: true },
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
} satisfies Record<string, SectionSpec>;

/** Sections that may be trimmed, in the order they appear in the block. */
export type RestoreSection = keyof typeof SPEC;
/** The restore block's sections, in the order they appear in the block. */
export const SECTION_SPEC: Record<RestoreSection, SectionSpec> = SPEC;

export const SECTION_ORDER = Object.keys(SECTION_SPEC) as readonly RestoreSection[];
