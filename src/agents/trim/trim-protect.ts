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
import type { Units } from "./trim-units.js";

export interface ProtectInput {
  messages: readonly AgentMessage[];
  units: Units;
  keepRecent: number;
  /** indexes of the query's user requests */
  requestAt: ReadonlySet<number>;
  /** the message at index i carries one of our blocks (cached per message by the caller) */
  carriesOurBlock: (i: number) => boolean;
}

const ALWAYS: ReadonlySet<string> = new Set(["system", "compactionSummary", "branchSummary", "custom"]);

/** Protected whatever the request: by role, or a user message carrying one of our blocks. */
export function fixedByRole(m: AgentMessage | undefined, carriesOurBlock: boolean): boolean {
  const role = String(m?.role);
  return ALWAYS.has(role) || (role === "user" && carriesOurBlock);
}

export function protectedIndexes(p: ProtectInput): Uint8Array {
  const n = p.messages.length;
  const out = new Uint8Array(n);
  let recentStart = n;
  for (let i = n - 1, seen = 0; i >= 0 && seen < p.keepRecent; i--) {
    const role = p.messages[i]?.role;
    if (role === "user" || role === "assistant") {
      seen++;
      recentStart = i;
    }
  }
  let lastCallUnit = -1;
  for (let i = n - 1; i >= 0; i--) {
    const m = p.messages[i];
    if (m?.role === "toolResult" || (m?.role === "assistant" && p.units.members[p.units.unitOf[i]!]!.length > 1)) {
      lastCallUnit = p.units.unitOf[i]!;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const m = p.messages[i];
    const role = String(m?.role);
    if (i >= recentStart || ALWAYS.has(role) || p.requestAt.has(i) || (role === "user" && p.carriesOurBlock(i))) out[i] = 1;
  }
  // a protected member protects its whole unit (a call and its results stay or go together)
  for (let u = 0; u < p.units.members.length; u++) {
    const members = p.units.members[u]!;
    if (members.length < 2) continue;
    if (u === lastCallUnit || members.some((i) => out[i])) for (const i of members) out[i] = 1;
  }
  return out;
}
