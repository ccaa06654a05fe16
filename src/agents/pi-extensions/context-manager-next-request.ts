/**
 * What pi's next request will hold, for `/context`: the last request the engine prepared (its
 * aged stand-ins, gauge line and blocks as sent) plus the session's messages that came after it
 * (the final reply of the run, a `!` command's output), which no `context` event has seen yet.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { RequestRecord } from "../engine/request-log.js";
import type { ReadonlySessionManager } from "./context-manager-capture.js";

const stamp = (m: AgentMessage | undefined) => {
  const t = (m as { timestamp?: unknown } | undefined)?.timestamp;
  return typeof t === "number" ? t : -Infinity;
};

export function nextRequestRecord(latest: RequestRecord, sm: Pick<ReadonlySessionManager, "getBranch">): RequestRecord {
  let newest = -Infinity;
  for (const m of latest.unaged) newest = Math.max(newest, stamp(m));
  const after: AgentMessage[] = [];
  try {
    for (const e of sm.getBranch() as Array<{ type?: string; message?: AgentMessage }>) {
      if (e.type === "message" && e.message && stamp(e.message) > newest) after.push(e.message);
    }
  } catch {
    return latest; // a stale session manager: the last request is what there is
  }
  if (after.length === 0) return latest;
  return { ...latest, unaged: [...latest.unaged, ...after], sent: [...latest.sent, ...after], final: [...latest.final, ...after] };
}
