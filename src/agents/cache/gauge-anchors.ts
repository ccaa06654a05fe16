/**
 * The gauge line under a prompt cache (docs/design.md#the-gauge-and-the-prompt-cache): a line
 * stays where it was sent, with the same text, in every later request, and a new line is added
 * at the end only when the reading moves by a step (GAUGE_STEP_PERCENT, the action, a checkpoint
 * write). So request N+1 holds request N's messages, its gauge lines included, unchanged through
 * N's last block, where N's cache breakpoint was.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { messageKey } from "../messages/message-key.js";
import { gaugeMessage } from "../context-gauge.js";
import { customTypeOf, GAUGE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { type CacheSession, type GaugeAnchor, MAX_ANCHORS } from "./cache-session.js";

/** Percentage points the reading moves before a new line is sent. */
export const GAUGE_STEP_PERCENT = 5;

/** The reading's step: a new line when it differs from the last line's. */
export function gaugeStep(action: string, utilization: number): string {
  return `${action}|${Math.floor((utilization * 100 + 1e-9) / GAUGE_STEP_PERCENT)}`;
}

export interface GaugeLineNow {
  text: string;
  step: string;
  /** a checkpoint write started with this request: its line is sent whatever the step */
  force: boolean;
}

/**
 * The messages with the session's gauge lines where they were sent (and incoming gauge lines,
 * which only an older copy of ours can be, dropped), plus `line` at the end when the reading
 * moved a step. Lines whose neighbour is gone (a compaction, a trim) are forgotten.
 * Returns the input array when it holds no gauge line and none is added.
 */
export function withAnchoredGauge(messages: AgentMessage[], session: CacheSession, line: GaugeLineNow | null, now: number): AgentMessage[] {
  const hasIncoming = messages.some((m) => customTypeOf(m) === GAUGE_CUSTOM_TYPE);
  if (session.anchors.length === 0 && !line && !hasIncoming) return messages;
  const byAfter = new Map<string, GaugeAnchor[]>();
  for (const a of session.anchors) {
    const list = byAfter.get(a.after);
    if (list) list.push(a);
    else byAfter.set(a.after, [a]);
  }
  const out: AgentMessage[] = [];
  const live: GaugeAnchor[] = [];
  let lastKey: string | null = null;
  for (const m of messages) {
    if (customTypeOf(m) === GAUGE_CUSTOM_TYPE) continue;
    out.push(m);
    lastKey = messageKey(m);
    if (byAfter.size === 0 || lastKey === null) continue;
    const here = byAfter.get(lastKey);
    if (!here) continue;
    byAfter.delete(lastKey); // a key seen twice (copies of one message) places its lines once
    for (const a of here) {
      out.push(gaugeMessage(a.text, a.timestamp));
      live.push(a);
    }
  }
  session.anchors = live;
  const latest = live[live.length - 1];
  if (line && (line.force || !latest || latest.step !== line.step)) {
    out.push(gaugeMessage(line.text, now));
    // a request that ends in a message without identity cannot place its line again: sent once
    if (lastKey !== null) live.push({ after: lastKey, text: line.text, timestamp: now, step: line.step });
    if (live.length > MAX_ANCHORS) live.splice(0, live.length - MAX_ANCHORS);
  }
  return out;
}
