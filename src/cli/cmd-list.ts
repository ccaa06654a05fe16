/** `list`: sessions and their checkpoints, from each file's `meta` block (full validation: `verify`). */
import type { CliArgs } from "./args.js";
import { displayLine } from "./display.js";
import type { Output } from "./output.js";
import { readSessionMetas, selectSessions } from "./sessions.js";

export async function runList(args: CliArgs, out: Output): Promise<number> {
  const sessions = await selectSessions(args.stateDir, args.sessionKey);
  const report = [];
  for (const s of sessions) {
    const files = await readSessionMetas(s);
    report.push({
      // key and error lines may quote file content: sanitised as the restore block is
      session_key: s.sessionKey === null ? null : displayLine(s.sessionKey),
      dir: s.path,
      checkpoints: files.map((f) =>
        f.meta
          ? {
              id: f.id,
              trigger: f.meta.trigger,
              created_at: f.meta.created_at,
              input_tokens: f.meta.token_usage.input_tokens,
              context_window: f.meta.token_usage.context_window,
              utilization: f.meta.token_usage.utilization,
              path: f.path,
            }
          : { id: f.id, error: displayLine(f.error ?? ""), path: f.path },
      ),
    });
  }
  if (args.json) {
    out.json({ state_dir: args.stateDir, sessions: report });
    return 0;
  }
  if (report.length === 0) {
    out.line(`no checkpoint sessions in ${args.stateDir}`);
    return 0;
  }
  for (const s of report) {
    out.line(`${s.session_key ?? "(no valid checkpoint: key unknown)"}`);
    out.line(`  dir ${s.dir}`);
    for (const c of s.checkpoints) {
      if ("error" in c) out.line(`  ${c.id}  INVALID  ${c.error}`);
      else
        out.line(
          `  ${c.id}  ${c.trigger.padEnd(10)}  ${c.created_at}  ${c.input_tokens}/${c.context_window} tokens (${Math.round(c.utilization * 100)}%)`,
        );
    }
    if (s.checkpoints.length === 0) out.line("  (no checkpoints)");
  }
  return 0;
}
