/** `show <checkpoint>`: one checkpoint as YAML (validated first) or JSON. */
import { serializeCheckpoint } from "../agents/checkpoint/yaml.js";
import type { CliArgs } from "./args.js";
import { displayCheckpoint } from "./display.js";
import { CliError, EXIT_USAGE } from "./errors.js";
import type { Output } from "./output.js";
import { loadCheckpoint, resolveCheckpointRef } from "./sessions.js";

export async function runShow(args: CliArgs, out: Output): Promise<number> {
  const [ref, ...extra] = args.rest;
  if (ref === undefined) throw new CliError("show needs a checkpoint: cp_003, 3, or a path", EXIT_USAGE);
  if (extra.length > 0) throw new CliError(`show takes one checkpoint, got extra ${JSON.stringify(extra.join(" "))}`, EXIT_USAGE);
  const target = resolveCheckpointRef(ref, args.stateDir, args.sessionKey, "show");
  const { checkpoint } = await loadCheckpoint(target.path, target.sessionKey, args.stateDir);
  // sanitised as the restore block is: a file edited on disk cannot make the CLI echo a secret
  const shown = displayCheckpoint(checkpoint);
  if (args.json) out.json(shown);
  else out.line(serializeCheckpoint(shown).trimEnd());
  return 0;
}
