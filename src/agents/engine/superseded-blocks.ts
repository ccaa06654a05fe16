/**
 * What a request sends of our own blocks: only the latest restore block and gauge line (older
 * copies survive in pi's keep-recent window and would contradict the newer one), and never a
 * /context report.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { customTypeOf, GAUGE_CUSTOM_TYPE, REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";

/**
 * Drops every restore block and gauge line but the latest of each, and /context reports.
 * One pass of role checks (no text is read); returns the input array when nothing is dropped.
 */
export function withoutSuperseded(messages: AgentMessage[]): AgentMessage[] {
  let lastRestore = -1;
  let lastGauge = -1;
  let drop = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== "custom") continue; // most messages: no call per message on the request path
    const t = customTypeOf(messages[i]!);
    if (t === undefined) continue;
    if (t === RESTORE_CUSTOM_TYPE) {
      if (lastRestore >= 0) drop++;
      lastRestore = i;
    } else if (t === GAUGE_CUSTOM_TYPE) {
      if (lastGauge >= 0) drop++;
      lastGauge = i;
    } else if (t === REPORT_CUSTOM_TYPE) drop++;
  }
  if (drop === 0) return messages;
  return messages.filter((m, i) => {
    const t = customTypeOf(m);
    if (t === RESTORE_CUSTOM_TYPE) return i === lastRestore;
    if (t === GAUGE_CUSTOM_TYPE) return i === lastGauge;
    return t !== REPORT_CUSTOM_TYPE;
  });
}
