/** `/context` in pi: gauge, breakdown, latest checkpoint and its restore block (never sent to the model). */
import type { ExtensionAPI, ExtensionContext, SessionEntry } from "@mariozechner/pi-coding-agent";
import { checkpointSessionDir } from "../../infra/session-dir.js";
import { readLatestCheckpoint } from "../checkpoint/files.js";
import { type RestoreKind, restoreBlockOf } from "../engine/restore-block.js";
import { formatGaugeLine } from "../gauge/gauge-line.js";
import { gaugeAction } from "../gauge/context-gauge.js";
import type { ContextManagerEngine } from "../engine/context-manager-engine.js";
import { type CapturedSession, type ReadonlySessionManager, safeUsage } from "./context-manager-session.js";
import { REPORT_CUSTOM_TYPE, RESTORE_CUSTOM_TYPE } from "../messages/custom-types.js";
import { breakdownBar, breakdownTable } from "../breakdown/render.js";
import { formatReuse } from "../prompt-cost/reuse.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { RequestRecord } from "../engine/request-log.js";
import { isCheckpointCompactionDetails } from "../engine/compaction.js";

export interface ContextCommandDeps {
  session(ctx: ExtensionContext): CapturedSession | null;
  api(ctx: ExtensionContext): Promise<ContextManagerEngine | null>;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

export async function contextReport(ctx: ExtensionContext, deps: ContextCommandDeps): Promise<string> {
  const api = await deps.api(ctx);
  if (!api) return "[context-manager] not active in this session (disabled, or invalid settings: see the warning printed at startup).";
  const run = api.report((latest) => {
    const session = deps.session(ctx);
    return session ? nextRequestRecord(latest, session.sessionManager) : latest;
  });
  const { config, stateDir } = run.runtime;
  const lines = [`[context-manager] session key ${run.sessionKey}`, `state dir ${stateDir}`];

  const usage = safeUsage(ctx);
  if (usage && usage.tokens != null && usage.percent != null) {
    const reading = { tokens: usage.tokens, contextWindow: usage.contextWindow, utilization: usage.percent / 100, source: "sdk" as const };
    const action = gaugeAction(reading, config);
    lines.push(`Gauge: ${formatGaugeLine(reading, false)} (the model sees it from ${pct(config.gaugeThreshold)}; checkpoint at ${pct(config.checkpointThreshold)}; now: ${action})`);
  } else {
    lines.push(`Gauge: unknown until the next reply (pi reports no usage before the first reply and after a compaction)`);
  }

  if (run.breakdown === undefined) lines.push("Breakdown: none yet (no request sent in this session)");
  else if (!run.breakdown) lines.push("Breakdown: unavailable");
  else {
    const b = run.breakdown;
    lines.push(breakdownBar(b, run.window), ...breakdownTable(b, run.window, config.checkpointThreshold));
  }
  if (run.reuse) lines.push(`Last request: ${formatReuse(run.reuse)}`);

  // read once: the line naming the checkpoint and the block below are of the same one
  const latest = await readLatestCheckpoint({ stateDir }, run.sessionKey).catch(() => null);
  if (!latest) {
    lines.push("Latest checkpoint: none yet for this key.");
    return lines.join("\n");
  }
  const m = latest.meta;
  lines.push(
    `Latest checkpoint: ${m.checkpoint_id} (${m.trigger}, ${m.created_at}, ${m.token_usage.input_tokens} input tokens${m.session_id === run.sessionId ? ", this session" : ", an earlier session"})`,
    `  ${checkpointSessionDir(stateDir, run.sessionKey)}`,
  );
  const session = deps.session(ctx);
  const due = session ? restoreDue(session.sessionManager.getBranch()) : null;
  const kind = due?.kind ?? (m.session_id === run.sessionId ? "post-compaction" : "resume");
  let block: ReturnType<typeof restoreBlockOf> | null;
  try {
    block = restoreBlockOf(latest, { stateDir, kind, maxTokens: config.restoreMaxTokens });
  } catch {
    block = null;
  }
  if (block) {
    lines.push(
      due
        ? `Restore block of ${m.checkpoint_id} due on the next prompt (${kind}, ~${block.tokens} tokens):`
        : `Restore block (none due now; this is how ${m.checkpoint_id} renders as ${kind}, ~${block.tokens} tokens):`,
      block.text,
    );
  }
  return lines.join("\n");
}

export function registerContextCommand(pi: ExtensionAPI, deps: ContextCommandDeps): void {
  pi.registerCommand("context", {
    description: "Context manager: gauge, latest checkpoint, and the restore block it would inject",
    handler: async (_args, ctx) => {
      let text: string;
      try {
        text = await contextReport(ctx, deps);
      } catch (e) {
        text = `[context-manager] /context failed: ${(e as Error).message}`;
      }
      pi.sendMessage({ customType: REPORT_CUSTOM_TYPE, content: text, display: true });
    },
  });
}

const stamp = (m: AgentMessage | undefined) => {
  const t = (m as { timestamp?: unknown } | undefined)?.timestamp;
  return typeof t === "number" ? t : -Infinity;
};

/** What pi's next request will hold: the last request as sent plus the session's messages after it. */
function nextRequestRecord(latest: RequestRecord, sm: Pick<ReadonlySessionManager, "getBranch">): RequestRecord {
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

/**
 * Standalone pi's due restore, read from `branch` (sessionManager.getBranch(), root first; it holds across
 * processes): after a host-summarized compaction with no restore since, or on a session's first prompt.
 * `key`: the compaction entry id, or "resume" (one attempt each per process).
 */
export function restoreDue(branch: readonly SessionEntry[]): { kind: RestoreKind; key: string } | null {
  let sawMessage = false;
  for (let i = branch.length - 1; i >= 0; i--) {
    const e = branch[i]!;
    if (e.type === "custom_message" && e.customType === RESTORE_CUSTOM_TYPE) return null;
    if (e.type === "compaction") return isCheckpointCompactionDetails(e.details) ? null : { kind: "post-compaction", key: e.id };
    if (e.type === "message") sawMessage = true;
  }
  return sawMessage ? null : { kind: "resume", key: "resume" };
}
