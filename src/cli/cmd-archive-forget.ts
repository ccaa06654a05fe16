/**
 * `openclaw-context archive rm --session-key K` and `archive prune [--retention-days N]`: deleting
 * archived context (issue 28; docs/security.md "Deleting what is stored").
 */
import { pruneArchives, removeArchiveOf } from "../agents/archive/forget.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../agents/config/context-manager-config.js";
import { CliError, EXIT_PROBLEM, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";

export const ARCHIVE_RM_SCHEMA = "openclaw-context.archive.rm.v1";
export const ARCHIVE_PRUNE_SCHEMA = "openclaw-context.archive.prune.v1";

export async function runArchiveForget(
  command: "rm" | "prune",
  o: { stateDir: string; key: string | null; dryRun: boolean; json: boolean; retentionDays: string | undefined },
  out: Output,
): Promise<number> {
  const verb = o.dryRun ? "would remove" : "removed";
  if (command === "rm") {
    if (o.key === null) throw new CliError("archive rm: --session-key is required", EXIT_USAGE);
    const r = await removeArchiveOf(o.stateDir, o.key, { dryRun: o.dryRun });
    if (o.json) out.json({ schema: ARCHIVE_RM_SCHEMA, session_key: o.key, ...r });
    else if (!r.existed) out.warn(`no archive for session key ${JSON.stringify(o.key)} in ${o.stateDir}`);
    else out.line(`${verb} the archive of ${JSON.stringify(o.key)} (${r.bytes} bytes): ${r.dir}`);
    return r.existed ? 0 : EXIT_PROBLEM;
  }
  let days = DEFAULT_CONTEXT_MANAGER_CONFIG.archiveRetentionDays;
  if (o.retentionDays !== undefined) {
    days = Number(o.retentionDays);
    if (!Number.isInteger(days) || days < 0) throw new CliError(`--retention-days expects a whole number >= 0, got ${JSON.stringify(o.retentionDays)}`, EXIT_USAGE);
  }
  const r = await pruneArchives(o.stateDir, { retentionDays: days, dryRun: o.dryRun });
  if (o.json) {
    out.json({ schema: ARCHIVE_PRUNE_SCHEMA, state_dir: o.stateDir, ...r });
    return 0;
  }
  if (r.archives.length === 0) out.line(`nothing older than ${days} days in ${o.stateDir}`);
  for (const a of r.archives) out.line(`${a.dir}: ${verb} ${a.dropped} records${a.removed ? " (the whole archive)" : `, kept ${a.kept}`}`);
  return 0;
}
