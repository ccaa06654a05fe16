/**
 * Smart trim's Layer 1: what is never trimmed. Structural only (roles, custom types, our own
 * block markers), never a word of what the user wrote:
 * - system messages, a compaction or branch summary;
 * - every custom message (ours: gauge, restore, recall, the trim marker; another extension's
 *   are not ours to drop);
 * - the last `keepRecent` user/assistant messages and everything after the first of them
 *   (the current turn's tool results included);
 * - the latest tool call and its results (the unit of the last assistant message with calls);
 * - the user's own requests the query is built from (the latest real one at least: in a long
 *   agent run they are older than the last N messages, and without them the model loses its task);
 * - user messages carrying one of our blocks (a restore or recall block a host folded in).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";

const ALWAYS: ReadonlySet<string> = new Set(["system", "compactionSummary", "branchSummary", "custom"]);

/** Protected whatever the request: by role, or a user message carrying one of our blocks. */
export function fixedByRole(m: AgentMessage | undefined, carriesOurBlock: boolean): boolean {
  const role = String(m?.role);
  return ALWAYS.has(role) || (role === "user" && carriesOurBlock);
}
