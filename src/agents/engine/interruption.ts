import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { lastToolCallOf } from "../state/message-rules.js";

/**
 * working.interrupted and last_tool_call, from the branch alone. pi's isSplitTurn (and its
 * turn prefix) say where the cut falls, not whether work was cut off: a threshold or manual compaction of a FINISHED run (last reply
 * ended with stop) is no interruption even when the cut splits a turn, while a run stopped by
 * an overflow or an abort is one. So: interrupted when the run's last message is not a
 * finished reply; the last tool call is the branch's latest (the split turn is where pi's cut
 * falls, which on a threshold compaction can be a turn long before the one cut off).
 */
export function interruption(branch: readonly AgentMessage[]): { isSplitTurn: boolean; lastToolCall: { name: string; params_summary: string } | null } {
  const last = branch[branch.length - 1] as { role?: string; stopReason?: string } | undefined;
  const finished = last?.role === "assistant" && last.stopReason === "stop";
  if (finished || !last) return { isSplitTurn: false, lastToolCall: null };
  return { isSplitTurn: true, lastToolCall: lastToolCallOf(branch) };
}
