/**
 * Gauge lines stay where and as they were sent, a new one only when the reading moves a step, so request
 * N+1 repeats N through N's breakpoint (docs/design.md#the-gauge-and-the-prompt-cache). O(new) when appended.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { messageKey } from "../messages/message-key.js";
import { gaugeMessage } from "../gauge/context-gauge.js";
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

/** The messages with the session's lines re-placed and `line` appended when the reading moved a step. */
export function withAnchoredGauge(messages: AgentMessage[], session: CacheSession, line: GaugeLineNow | null, now: number): AgentMessage[] {
  const appended = onlyAppended(messages, session);
  let out = appended ? placeByIndex(messages, session) : placeByKey(messages, session);
  const live = session.anchors;
  const count = appended ? messages.length : messages.filter(isHost).length;
  const lastKey = count > 0 ? messageKey(messages.findLast(isHost)) : null;
  if (line && (line.force || live.at(-1)?.step !== line.step)) {
    if (out === messages) out = messages.slice();
    out.push(gaugeMessage(line.text, now));
    // a request that ends in a message without identity cannot place its line again: sent once
    if (lastKey !== null) live.push({ after: lastKey, text: line.text, timestamp: now, step: line.step, at: count });
    if (live.length > MAX_ANCHORS) live.splice(0, live.length - MAX_ANCHORS);
  }
  // the index path needs a history without our lines in it; an input that had some is judged whole next time
  session.placed = count === messages.length ? { count, firstKey: messageKey(messages[0]), lastKey } : null;
  return out;
}

/** The host only appended since the last placement (and sent no gauge line among the new messages). */
function onlyAppended(messages: readonly AgentMessage[], session: CacheSession): boolean {
  const p = session.placed;
  if (!p || p.count === 0 || messages.length < p.count) return false;
  if (messageKey(messages[p.count - 1]) !== p.lastKey || messageKey(messages[0]) !== p.firstKey) return false;
  return messages.slice(p.count).every(isHost);
}

/** Every kept line back at its index (all of them stand within the unchanged prefix). */
function placeByIndex(messages: AgentMessage[], session: CacheSession): AgentMessage[] {
  if (session.anchors.length === 0) return messages;
  const out: AgentMessage[] = [];
  let from = 0;
  for (const a of session.anchors) {
    for (; from < a.at; from++) out.push(messages[from]!);
    out.push(gaugeMessage(a.text, a.timestamp));
  }
  for (; from < messages.length; from++) out.push(messages[from]!);
  return out;
}

/** The full pass: each line after the message it followed, found by identity; incoming lines dropped. */
function placeByKey(messages: AgentMessage[], session: CacheSession): AgentMessage[] {
  if (session.anchors.length === 0 && messages.every(isHost)) return messages;
  const byAfter = new Map<string, GaugeAnchor[]>();
  for (const a of session.anchors) byAfter.set(a.after, [...(byAfter.get(a.after) ?? []), a]);
  const out: AgentMessage[] = [];
  const live: GaugeAnchor[] = [];
  let host = 0;
  for (const m of messages) {
    if (customTypeOf(m) === GAUGE_CUSTOM_TYPE) continue;
    out.push(m);
    host++;
    const key = byAfter.size > 0 ? messageKey(m) : null;
    const here = key === null ? undefined : byAfter.get(key);
    if (!here) continue;
    byAfter.delete(key!); // a key seen twice (copies of one message) places its lines once
    for (const a of here) {
      out.push(gaugeMessage(a.text, a.timestamp));
      a.at = host;
      live.push(a);
    }
  }
  session.anchors = live;
  return out;
}

const isHost = (m: AgentMessage): boolean => customTypeOf(m) !== GAUGE_CUSTOM_TYPE;
