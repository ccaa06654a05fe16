/**
 * `status`: a gauge-style summary of the latest checkpoint of each session, read from metadata
 * (the pointer's summary, see checkpoint/files.ts). With --session-key, the whole latest
 * checkpoint is read and its workspace drift shown too.
 */
import { readLatestCheckpoint, summarizeCheckpoint } from "../agents/checkpoint/files.js";
import { readLatestSummary } from "../agents/checkpoint/sessions.js";
import { formatGaugeLine } from "../agents/gauge/gauge-line.js";
import type { CliArgs } from "./args.js";
import { displayCheckpoint, displayLine } from "./display.js";
import { CliError, EXIT_PROBLEM } from "./errors.js";
import { formatAge, type Output } from "./output.js";
import { selectSessions } from "./sessions.js";
import { breakdownJson, breakdownLines, checkpointWithBreakdown } from "./breakdown-status.js";

export async function runStatus(args: CliArgs, out: Output): Promise<number> {
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  // drift needs the whole checkpoint and the restore renderer (Pi SDK): only for one key
  const { driftStatus, driftStatusLines } = args.sessionKey !== null ? await import("./drift-status.js") : { driftStatus: null, driftStatusLines: null };
  const report = [];
  // sessions with no valid checkpoint: named on stderr, and the exit code says so
  const invalid: string[] = [];
  for (const s of sessions) {
    const whole = args.sessionKey !== null || args.breakdown;
    const cp = s.sessionKey !== null && whole ? await readLatestCheckpoint({ stateDir: args.stateDir }, s.sessionKey) : null;
    const sum =
      s.sessionKey === null ? null : cp ? summarizeCheckpoint(cp) : args.sessionKey === null ? await readLatestSummary({ stateDir: args.stateDir }, s.sessionKey) : null;
    if (!sum) {
      if (args.sessionKey !== null) throw new CliError(`no valid checkpoint for session key ${JSON.stringify(args.sessionKey)} (run "verify")`);
      invalid.push(s.sessionKey !== null ? JSON.stringify(s.sessionKey) : s.path);
      continue;
    }
    const u = sum.token_usage;
    const withBreakdown = cp && args.breakdown && s.sessionKey !== null ? await checkpointWithBreakdown(args.stateDir, s.sessionKey, cp) : null;
    report.push({
      session_key: s.sessionKey === null ? null : displayLine(s.sessionKey),
      gauge: formatGaugeLine({ tokens: u.input_tokens, contextWindow: u.context_window, utilization: u.utilization, source: "sdk" }, false),
      checkpoint_id: sum.checkpoint_id,
      trigger: sum.trigger,
      created_at: sum.created_at,
      age: formatAge(sum.created_at),
      compaction_count: sum.compaction_count,
      counts: sum.counts,
      topic: displayLine(cp ? cp.working.topic : sum.topic),
      status: sum.status,
      ...(cp && driftStatus ? { drift: driftStatus(cp, args.stateDir) } : {}),
      ...(args.breakdown ? { breakdown: breakdownJson(withBreakdown ? displayCheckpoint(withBreakdown) : null) } : {}),
      cp,
      withBreakdown,
    });
  }
  if (args.json) {
    out.json({ state_dir: args.stateDir, sessions: report.map(({ cp: _cp, withBreakdown: _b, ...r }) => r) });
    return exitOf(report.length, invalid, out);
  }
  if (report.length === 0) out.line(`no valid checkpoints in ${args.stateDir}`);
  for (const r of report) {
    const c = r.counts;
    out.line(`${r.session_key}`);
    out.line(`  ${r.gauge}`);
    out.line(`  latest ${r.checkpoint_id} · trigger ${r.trigger} · ${r.age} (${r.created_at}) · compactions ${r.compaction_count} · status ${r.status}`);
    out.line(
      `  ${c.decisions} decisions · ${c.files_read} files read · ${c.files_modified} modified · ${c.tools_used} tools · ${c.errors} errors · ${c.open_items} open items · ${c.learnings} learnings`,
    );
    if (r.cp && r.drift && driftStatusLines) for (const l of driftStatusLines(r.cp, r.drift)) out.line(l);
    if (r.cp && args.breakdown) for (const l of breakdownLines(displayCheckpoint(r.cp), r.withBreakdown ? displayCheckpoint(r.withBreakdown) : null)) out.line(l);
  }
  return exitOf(report.length, invalid, out);
}

/** 0 only when every selected session has a valid latest checkpoint (and there is at least one). */
function exitOf(valid: number, invalid: string[], out: Output): number {
  for (const name of invalid) out.warn(`${name}: no valid checkpoint (run "verify")`);
  return valid === 0 || invalid.length > 0 ? EXIT_PROBLEM : 0;
}
