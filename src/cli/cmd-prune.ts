/**
 * `prune`: retention by hand — keep the newest N VALID checkpoints per session (never the
 * pointer's, never the newest valid one); `--dry-run` lists what would go and deletes nothing.
 */
import { DEFAULT_RETENTION } from "../agents/checkpoint/files.js";
import { sweepStaleTempFiles } from "../agents/checkpoint/files.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import type { CliArgs } from "./args.js";
import type { Output } from "./output.js";
import { applyPrune, planPrune } from "./prune-plan.js";
import { selectSessions } from "./sessions.js";

export async function runPrune(args: CliArgs, out: Output): Promise<number> {
  const keep = args.keep ?? DEFAULT_RETENTION;
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  const report = [];
  for (const s of sessions) {
    const plan = await planPrune(s.path, keep, s.sessionKey, nodeFsOps);
    const deleted = args.dryRun ? plan.doomed.map((f) => f.id) : await applyPrune(plan, nodeFsOps);
    if (!args.dryRun) await sweepStaleTempFiles(s.path, nodeFsOps);
    const invalid = plan.doomed.filter((f) => f.invalid && deleted.includes(f.id)).map((f) => f.id);
    report.push({ session_key: s.sessionKey, dir: s.path, deleted, invalid, kept: plan.kept });
  }
  if (args.json) out.json({ state_dir: args.stateDir, keep, dry_run: args.dryRun, sessions: report });
  else
    for (const r of report) {
      const verb = args.dryRun ? "would delete" : "deleted";
      const what = r.deleted.length ? `${verb} ${r.deleted.join(", ")}${r.invalid.length ? ` (invalid: ${r.invalid.join(", ")})` : ""}` : "nothing to delete";
      out.line(`${r.session_key ?? r.dir}: ${what}; kept ${r.kept.length ? r.kept.join(", ") : "no valid checkpoint"} (keep ${keep})`);
    }
  return 0;
}
