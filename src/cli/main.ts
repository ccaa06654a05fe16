/**
 * `openclaw-context`: inspect the context manager's checkpoints in an OpenClaw state dir.
 * Every failure is one line on stderr and a non-zero exit (1: data problem, 2: bad command
 * line); a stack trace is never printed.
 */
import { pathToFileURL } from "node:url";
import { type CliArgs, type CommandName, parseCliArgs, USAGE } from "./args.js";
import { CliError, EXIT_PROBLEM, EXIT_USAGE } from "./errors.js";
import { type Output, processOutput } from "./output.js";
import { displayLine } from "./display.js";
import { watchOutputStreams } from "./closed-pipe.js";

type Runner = (args: CliArgs, out: Output) => Promise<number>;

// Loaded on demand: `status` formats with the gauge module, which loads the Pi SDK (~2 s).
const RUNNERS: Record<CommandName, () => Promise<Runner>> = {
  list: async () => (await import("./cmd-list.js")).runList,
  show: async () => (await import("./cmd-show.js")).runShow,
  restore: async () => (await import("./cmd-restore.js")).runRestore,
  status: async () => (await import("./cmd-status.js")).runStatus,
  verify: async () => (await import("./cmd-verify.js")).runVerify,
  prune: async () => (await import("./cmd-prune.js")).runPrune,
};

export async function runCli(argv: string[], out: Output = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    if (argv[0] === "search" || argv[0] === "archive") return await (await import("./cmd-search.js")).runArchiveCli(argv, out, env);
    if (argv[0] === "artifact") return await (await import("./cmd-artifact.js")).runArtifact(argv.slice(1), out, env);
    if (argv[0] === "forget") return await (await import("./cmd-forget.js")).runForget(argv.slice(1), out, env);
    const args = parseCliArgs(argv, env);
    if (args.help) {
      out.line(USAGE);
      return 0;
    }
    if (args.command === null) {
      out.warn("missing command (try --help)");
      return EXIT_USAGE;
    }
    return await (await RUNNERS[args.command]())(args, out);
  } catch (e) {
    if (e instanceof CliError) {
      // may quote a checkpoint's content (a bad value): sanitised as the restore block is
      out.warn(displayLine(e.message));
      return e.exitCode;
    }
    const err = e as NodeJS.ErrnoException;
    const message = err?.message ?? String(e);
    // node's fs messages already start with the code ("EROFS: read-only file system, …")
    const code = err?.code && !message.startsWith(String(err.code)) ? `${err.code} ` : "";
    out.warn(`unexpected error: ${code}${message}`.split("\n")[0]!);
    return EXIT_PROBLEM;
  }
}

/** The CLI as a process (the bin shim, `tsx src/cli/main.ts`): a closed stdout or stderr (`| head`) ends the output quietly. */
export async function runCliProcess(argv: string[] = process.argv.slice(2)): Promise<number> {
  const streams = watchOutputStreams();
  return streams.exitCode(await runCli(argv));
}

// Run when executed directly (tsx src/cli/main.ts), not when imported by the bin shim or tests.
const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href : "";
if (import.meta.url === invoked) {
  runCliProcess().then((code) => {
    process.exitCode = code;
  });
}
