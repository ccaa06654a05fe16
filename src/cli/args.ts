/** Command-line parsing of `openclaw-context` (node:util parseArgs; strict). */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { CliError, EXIT_USAGE } from "./errors.js";
import { defaultStateDir } from "../infra/session-dir.js";

export { defaultStateDir };

export const COMMANDS = ["list", "show", "restore", "status", "verify", "prune"] as const;
export type CommandName = (typeof COMMANDS)[number];
/** Commands that take a positional argument (each checks how many itself); the others take none. */
const TAKES_POSITIONALS: ReadonlySet<CommandName> = new Set(["show", "restore"]);

export interface CliArgs {
  command: CommandName | null;
  /** positional arguments after the command */
  rest: string[];
  stateDir: string;
  sessionKey: string | null;
  json: boolean;
  help: boolean;
  kind: "post-compaction" | "resume";
  keep: number | null;
  /** prune: list what would be deleted, delete nothing */
  dryRun: boolean;
  /** status: what filled the window at the latest checkpoint */
  breakdown: boolean;
}

export const USAGE = `Usage: openclaw-context <command> [options]

Inspect the context manager's checkpoints in an OpenClaw state dir.

Commands:
  list                      sessions and their checkpoints (id, trigger, created_at, tokens)
  show <checkpoint>         one checkpoint as YAML; <checkpoint> is cp_003, 3, or a file path
  restore [<checkpoint>]    the restore block an agent would receive (latest checkpoint by default)
  status                    gauge-style summary of the latest checkpoint
  verify                    validate every checkpoint, pointer and previous_checkpoint chain
  prune                     delete old checkpoints, keeping the newest --keep N valid ones (default 5)
  search <query>            archived fragments of compacted context (--session-key; search --help)
  archive stats|rm|prune    size and contents of the archives of compacted context; delete one key's, or prune to the retention
  artifact <sub>            stored tool outputs: stash | fetch | peek | list | gc | rm (artifact --help)
  forget <key>              remove everything stored for one session key (--dry-run; forget --help)

Options:
  --state-dir <dir>         state dir (default: $OPENCLAW_STATE_DIR, else ~/.openclaw)
  --session-key <key>       session key (required by show/restore unless a path is given)
  --kind <kind>             restore: post-compaction | resume (default: resume)
  --keep <n>                prune: valid checkpoints to keep per session (default: 5)
  --dry-run                 prune: list what would be deleted, delete nothing
  --breakdown               status: what filled the window at the latest checkpoint, by category
  --json                    machine-readable output
  -h, --help                this help

Exit codes: 0 ok, 1 problem found (missing dir, unknown key, corrupt file), 2 bad command line.`;


export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        "state-dir": { type: "string" },
        "session-key": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        kind: { type: "string" },
        keep: { type: "string" },
        "dry-run": { type: "boolean" },
        breakdown: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new CliError(`${(e as Error).message} (try --help)`, EXIT_USAGE);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  let command: CommandName | null = null;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) throw new CliError(`unknown command "${first}" (commands: ${COMMANDS.join(", ")})`, EXIT_USAGE);
    command = first as CommandName;
  }
  if (command !== null && !TAKES_POSITIONALS.has(command) && rest.length > 0) {
    throw new CliError(`${command} takes no arguments, got ${JSON.stringify(rest.join(" "))} (try --help)`, EXIT_USAGE);
  }
  const kind = (values.kind as string | undefined) ?? "resume";
  if (kind !== "post-compaction" && kind !== "resume") throw new CliError(`--kind expects post-compaction or resume, got "${kind}"`, EXIT_USAGE);
  let keep: number | null = null;
  if (values.keep !== undefined) {
    keep = Number(values.keep);
    if (!Number.isSafeInteger(keep) || keep < 1) throw new CliError(`--keep expects a whole number >= 1, got "${String(values.keep)}"`, EXIT_USAGE);
  }
  const stateDirRaw = values["state-dir"] as string | undefined;
  if (stateDirRaw !== undefined && stateDirRaw.trim() === "") throw new CliError("--state-dir expects a path", EXIT_USAGE);
  const sessionKey = (values["session-key"] as string | undefined) ?? null;
  if (sessionKey !== null && sessionKey === "") throw new CliError("--session-key expects a non-empty key", EXIT_USAGE);
  return {
    command,
    rest,
    stateDir: stateDirRaw !== undefined ? resolve(stateDirRaw) : defaultStateDir(env),
    sessionKey,
    json: values.json === true,
    help: values.help === true,
    kind,
    keep,
    dryRun: values["dry-run"] === true,
    breakdown: values.breakdown === true,
  };
}
