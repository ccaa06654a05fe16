/**
 * Smart trim's Layer 1: what is never trimmed, by structure only (roles, custom types, our block
 * markers): system messages and summaries; custom messages; the last `keepRecent` user/assistant
 * messages and all after them; the latest tool call with its results; the user requests the query
 * is built from (without them the model loses its task); user messages carrying one of our blocks.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const ALWAYS: ReadonlySet<string> = new Set(["system", "compactionSummary", "branchSummary", "custom"]);

/** Protected whatever the request: by role, or a user message carrying one of our blocks. */
export function fixedByRole(m: AgentMessage | undefined, carriesOurBlock: boolean): boolean {
  const role = String(m?.role);
  return ALWAYS.has(role) || (role === "user" && carriesOurBlock);
}
