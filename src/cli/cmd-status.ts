/** `status`: a gauge-style summary of the latest checkpoint of each session (or of --session-key). */
import { readLatestCheckpoint } from "../agents/context-checkpoint.js";
import { formatGaugeLine } from "../agents/context-gauge.js";
import type { CliArgs } from "./args.js";
import { CliError } from "./errors.js";
import { formatAge, type Output } from "./output.js";
import { selectSessions } from "./sessions.js";
import { driftStatus, driftStatusLines } from "./drift-status.js";

export async function runStatus(args: CliArgs, out: Output): Promise<number> {
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  const report = [];
  for (const s of sessions) {
    if (s.sessionKey === null) continue;
    const cp = await readLatestCheckpoint({ stateDir: args.stateDir }, s.sessionKey);
    if (!cp) {
      if (args.sessionKey !== null) throw new CliError(`no valid checkpoint for session key ${JSON.stringify(s.sessionKey)} (run "verify")`);
      continue;
    }
    const u = cp.meta.token_usage;
    report.push({
      session_key: s.sessionKey,
      gauge: formatGaugeLine({ tokens: u.input_tokens, contextWindow: u.context_window, utilization: u.utilization, source: "sdk" }, false),
      checkpoint_id: cp.meta.checkpoint_id,
      trigger: cp.meta.trigger,
      created_at: cp.meta.created_at,
      age: formatAge(cp.meta.created_at),
      compaction_count: cp.meta.compaction_count,
      counts: {
        decisions: cp.decisions.length,
        files_read: cp.resources.files_read.length,
        files_modified: cp.resources.files_modified.length,
        tools_used: cp.resources.tools_used.length,
        errors: cp.thread.errors.length,
        open_items: cp.open_items.length,
        learnings: cp.learnings.length,
      },
      topic: cp.working.topic,
      status: cp.working.status,
      drift: driftStatus(cp, args.stateDir),
      cp,
    });
  }
  if (args.json) {
    out.json({ state_dir: args.stateDir, sessions: report.map(({ cp: _cp, ...r }) => r) });
    return 0;
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
    for (const l of driftStatusLines(r.cp, r.drift)) out.line(l);
  }
  return 0;
}
