/**
 * `openclaw-context forget <key> [--dry-run] [--json] [--state-dir D]`: the right to forget one
 * session key (issue 28). Removes the key's checkpoints, capture state (and the plugin's session
 * file in it), archive, artifacts refs log, and the artifacts ONLY that key refers to (an artifact
 * another key still names is kept and counted). `--dry-run` lists what would go.
 */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { removeArchiveOf } from "../agents/archive/forget.js";
import { artifactBytes, artifactsOfKey } from "../agents/artifacts/gc.js";
import { formatHandle } from "../agents/artifacts/handle.js";
import { dropFromRefs, refsPath, removeArtifact, unlinkIfPresent } from "../agents/artifacts/store.js";
import { checkpointSessionDir, stateSessionDir } from "../infra/session-dir.js";
import { defaultStateDir } from "./args.js";
import { CliError, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";

export const FORGET_SCHEMA = "openclaw-context.forget.v1";

export const FORGET_USAGE = `Usage: openclaw-context forget <session key> [--dry-run] [--json] [--state-dir <dir>]

Removes everything stored for one session key: its checkpoints, its capture state, its archive,
its artifacts refs log and the artifacts only that key refers to (docs/security.md).
  --dry-run   list what would be removed, remove nothing`;

function bytesUnder(dir: string): number {
  let n = 0;
  let entries: import("node:fs").Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    try {
      n += e.isDirectory() ? bytesUnder(p) : statSync(p).size;
    } catch {
      // gone
    }
  }
  return n;
}

export async function runForget(argv: string[], out: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { "state-dir": { type: "string" }, "dry-run": { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    throw new CliError(`${(e as Error).message} (try forget --help)`, EXIT_USAGE);
  }
  if (values.help) {
    out.line(FORGET_USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] === "") throw new CliError("forget expects exactly one session key (try forget --help)", EXIT_USAGE);
  const key = positionals[0]!;
  const stateDir = typeof values["state-dir"] === "string" ? path.resolve(values["state-dir"]) : defaultStateDir(env);
  const dryRun = values["dry-run"] === true;

  // decided before anything is removed: what only this key names is read from its files
  const artifacts = await artifactsOfKey(stateDir, key);
  const dirs = { checkpoints: checkpointSessionDir(stateDir, key), state: stateSessionDir(stateDir, key) };
  const report = {
    schema: FORGET_SCHEMA,
    state_dir: stateDir,
    session_key: key,
    dry_run: dryRun,
    checkpoints: { dir: dirs.checkpoints, existed: existsSync(dirs.checkpoints), bytes: bytesUnder(dirs.checkpoints) },
    state: { dir: dirs.state, existed: existsSync(dirs.state), bytes: bytesUnder(dirs.state) },
    archive: await removeArchiveOf(stateDir, key, { dryRun: true }),
    artifacts: {
      removed: artifacts.own.map(formatHandle),
      bytes: artifacts.own.reduce((n, hex) => n + artifactBytes(stateDir, hex), 0),
      kept_shared: artifacts.shared.length,
      refs_log: existsSync(refsPath(stateDir, key)),
    },
  };
  if (!dryRun) {
    for (const hex of artifacts.own) removeArtifact(stateDir, hex);
    dropFromRefs(stateDir, new Set(artifacts.own));
    unlinkIfPresent(refsPath(stateDir, key));
    await removeArchiveOf(stateDir, key);
    rmSync(dirs.checkpoints, { recursive: true, force: true });
    rmSync(dirs.state, { recursive: true, force: true });
  }
  if (values.json) {
    out.json(report);
    return 0;
  }
  const verb = dryRun ? "would remove" : "removed";
  const found = report.checkpoints.existed || report.state.existed || report.archive.existed || report.artifacts.refs_log || artifacts.own.length > 0;
  if (!found) {
    out.line(`nothing stored for ${JSON.stringify(key)} in ${stateDir}`);
    return 0;
  }
  out.line(`${verb} for ${JSON.stringify(key)}:`);
  if (report.checkpoints.existed) out.line(`  checkpoints  ${report.checkpoints.dir} (${report.checkpoints.bytes} bytes)`);
  if (report.state.existed) out.line(`  state        ${report.state.dir} (${report.state.bytes} bytes)`);
  if (report.archive.existed) out.line(`  archive      ${report.archive.dir} (${report.archive.bytes} bytes)`);
  out.line(`  artifacts    ${artifacts.own.length} only this key refers to (${report.artifacts.bytes} bytes); ${artifacts.shared.length} shared with other keys kept`);
  return 0;
}
