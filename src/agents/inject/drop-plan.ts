/**
 * The restore block's drop plan: which optional entries go first when the block is over its
 * budget. Kept apart from the renderer so the priorities read (and are tested) as one table.
 */
import type { RestoreSection } from "./sections.js";

/**
 * Priority plan, lowest priority first. Each step drops entries of one section until only
 * `keep` remain or the block fits its budget: "soft" steps aim at SOFT_SHARE of the cap
 * (the block's typical size), "hard" steps at the cap itself. Working state, header, warning
 * and end marker are never in the plan. With a work ledger the block keeps, in this order of
 * importance: working state and next action, every changed file (up to 30, folded), open
 * failures, the user's requests, the agent's last report, the main changes, decisions.
 */
export const RESTORE_DROP_PLAN: ReadonlyArray<{ section: RestoreSection; keep: number; budget: "soft" | "hard" }> = [
  { section: "files_read", keep: 0, budget: "soft" },
  { section: "tools_used", keep: 0, budget: "soft" },
  { section: "key_exchanges", keep: 2, budget: "soft" },
  { section: "thread_summary", keep: 0, budget: "soft" },
  { section: "learnings", keep: 2, budget: "soft" },
  { section: "decisions", keep: 3, budget: "soft" },
  { section: "open_items", keep: 3, budget: "soft" },
  { section: "errors", keep: 3, budget: "soft" },
  { section: "key_exchanges", keep: 0, budget: "soft" },
  { section: "commands", keep: 3, budget: "soft" },
  { section: "changes", keep: 4, budget: "soft" },
  { section: "requests", keep: 5, budget: "soft" },
  { section: "decisions", keep: 1, budget: "soft" },
  { section: "open_items", keep: 1, budget: "soft" },
  { section: "learnings", keep: 0, budget: "soft" },
  { section: "files_modified", keep: 5, budget: "soft" },
  { section: "changes", keep: 3, budget: "soft" },
  { section: "errors", keep: 1, budget: "soft" },
  { section: "commands", keep: 2, budget: "hard" },
  { section: "requests", keep: 3, budget: "hard" },
  { section: "open_failures", keep: 4, budget: "hard" },
  { section: "errors", keep: 0, budget: "hard" },
  { section: "extras", keep: 0, budget: "hard" },
  { section: "decisions", keep: 0, budget: "hard" },
  { section: "changes", keep: 0, budget: "hard" },
  { section: "commands", keep: 0, budget: "hard" },
  { section: "open_items", keep: 0, budget: "hard" },
  { section: "last_report", keep: 0, budget: "hard" },
  { section: "open_failures", keep: 2, budget: "hard" },
  { section: "files_changed", keep: 30, budget: "hard" },
  { section: "files_modified", keep: 0, budget: "hard" },
  { section: "requests", keep: 2, budget: "hard" },
  { section: "goal", keep: 0, budget: "hard" },
  { section: "requests", keep: 0, budget: "hard" },
  { section: "open_failures", keep: 0, budget: "hard" },
  { section: "files_changed", keep: 10, budget: "hard" },
  { section: "files_changed", keep: 0, budget: "hard" },
];

/** The soft budget: the block's typical size (600-750 tokens at the default cap of 800). */
export const SOFT_SHARE = 0.93;

/** Sections whose LAST entries go first (their first entries matter most). */
export const DROP_FROM_END: ReadonlySet<RestoreSection> = new Set([
  "learnings",
  "open_items",
  "requests",
  "files_changed",
  "changes",
  "commands",
  "decisions",
]);
