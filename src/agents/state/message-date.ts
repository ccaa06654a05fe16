/** When a message was written, as capture records it: now when its timestamp is missing or unusable. */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { timestampOf } from "./message-cursor.js";

function dateOfTs(ts: number): Date {
  const d = ts > 0 ? new Date(ts) : new Date();
  return Number.isNaN(d.getTime()) ? new Date() : d;
}

/** The ISO time of a message timestamp (ms). */
export function isoOf(ts: number): string {
  return dateOfTs(ts).toISOString();
}

/** When a message was written (now when it does not say). */
export function dateOf(m: AgentMessage): Date {
  return dateOfTs(timestampOf(m));
}
