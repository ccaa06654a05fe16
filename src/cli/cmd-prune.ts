/** `prune`: retention by hand — keep the newest N checkpoints per session (never the pointer's). */
import { DEFAULT_RETENTION } from "../agents/context-checkpoint.js";
import { pruneCheckpointsInDir } from "../agents/checkpoint/retention.js";
import { nodeFsOps } from "../infra/fs-ops.js";
import type { CliArgs } from "./args.js";
import type { Output } from "./output.js";
import { selectSessions } from "./sessions.js";

export async function runPrune(args: CliArgs, out: Output): Promise<number> {
  const keep = args.keep ?? DEFAULT_RETENTION;
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  const report = [];
  for (const s of sessions) {
    const deleted = await pruneCheckpointsInDir(s.path, keep, nodeFsOps);
    report.push({ session_key: s.sessionKey, dir: s.path, deleted });
  }
  if (args.json) out.json({ state_dir: args.stateDir, keep, sessions: report });
  else
    for (const r of report)
      out.line(`${r.session_key ?? r.dir}: ${r.deleted.length ? `deleted ${r.deleted.join(", ")}` : "nothing to delete"} (keep ${keep})`);
  return 0;
}
