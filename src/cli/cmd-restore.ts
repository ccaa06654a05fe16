/** `restore [<checkpoint>]`: the block an agent would receive, rendered exactly as the host injects it. */
import { readLatestCheckpoint } from "../agents/checkpoint/files.js";
import { type Checkpoint } from "../agents/checkpoint/schema.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../agents/config/context-manager-config.js";
import type { CliArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";
import { driftOf } from "../agents/drift/record.js";
import { renderRestoreBlock } from "../agents/engine/restore-block.js";
import { loadCheckpoint, requireSessionKey, resolveCheckpointRef, selectSessions } from "./sessions.js";

export async function runRestore(args: CliArgs, out: Output): Promise<number> {
  const [ref, ...extra] = args.rest;
  if (extra.length > 0) throw new CliError(`restore takes at most one checkpoint, got extra ${JSON.stringify(extra.join(" "))}`, EXIT_USAGE);
  let checkpoint: Checkpoint;
  if (ref !== undefined) {
    const target = resolveCheckpointRef(ref, args.stateDir, args.sessionKey, "restore");
    checkpoint = (await loadCheckpoint(target.path, target.sessionKey, args.stateDir)).checkpoint;
  } else {
    const key = requireSessionKey(args.sessionKey, "restore");
    await selectSessions(args.stateDir, key);
    const latest = await readLatestCheckpoint({ stateDir: args.stateDir }, key);
    if (!latest) throw new CliError(`no valid checkpoint for session key ${JSON.stringify(key)} (run "verify")`);
    checkpoint = latest;
  }
  // with the workspace drift section, as the host renders it
  const rendered = renderRestoreBlock(checkpoint, { kind: args.kind, maxTokens: DEFAULT_CONTEXT_MANAGER_CONFIG.restoreMaxTokens, drift: driftOf(checkpoint, args.stateDir) });
  if (args.json) out.json({ checkpoint_id: checkpoint.meta.checkpoint_id, kind: args.kind, tokens: rendered.tokens, omitted: rendered.omitted, text: rendered.text });
  else out.line(rendered.text);
  return 0;
}
