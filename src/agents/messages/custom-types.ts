/** The custom message types this package sends, in one home so every filter agrees. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

/** the gauge line appended to each request */
export const GAUGE_CUSTOM_TYPE = "context-gauge";
/** a restore block (standalone pi delivers it as a custom message) */
export const RESTORE_CUSTOM_TYPE = "context-restore";
/** the /context report: shown in pi's UI, never sent to the model */
export const REPORT_CUSTOM_TYPE = "context-report";
/** the automatic recall block */
export const RECALL_CUSTOM_TYPE = "context-recall";
/** the marker line smart trim leaves where it dropped messages */
export const TRIM_CUSTOM_TYPE = "context-trim";

/** the agent's archive search tool: its calls and results are recall output */
export const SEARCH_TOOL = "context_search";
/** tools whose results are recalled archive content: never archived, stashed or offloaded again */
export const RECALL_TOOLS: ReadonlySet<string> = new Set([SEARCH_TOOL]);

/** A message's custom type, or undefined for every other role. */
export function customTypeOf(m: AgentMessage): string | undefined {
  return m?.role === "custom" ? (m as { customType?: string }).customType : undefined;
}
