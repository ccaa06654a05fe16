/** Command-line options of `npm run demo`. */
import { parseArgs } from "node:util";

export interface DemoArgs {
  /** state dir to use; null: a fresh temp dir (kept after exit) */
  stateDir: string | null;
  sessionKey: string;
  turns: number;
  provider: string | null;
  model: string | null;
  /** context window for the run; null: 16k for faux, the model's own for a real provider */
  contextWindow: number | null;
  /** who compacts (config `compaction`, issue 25) */
  compaction: "host" | "checkpoint";
  help: boolean;
}

export const DEMO_USAGE = `Usage: npm run demo -- [options]

Drives the real host (agent runner, system events, compaction-safeguard,
context manager) through a scripted coding session on the faux model, with the
real read/write/edit/bash tools on a temp workspace, and prints the timeline.

Options:
  --state-dir <dir>       state dir (default: a fresh temp dir, kept after exit)
  --session-key <key>     session key (default: agent:main:demo:direct:1)
  --turns <n>             scripted turns before /compact and /new (default: 14)
  --context-window <n>    context window in tokens (default: 16000 on faux)
  --provider <name>       run against a real provider (pi-ai's getModel); needs its API key in the environment
  --model <id>            model id for --provider
  --compaction <mode>     host (default: the model summarizes) or checkpoint (the checkpoint is the summary, no model call)
  -h, --help              this help`;

export class DemoArgsError extends Error {}

export function parseDemoArgs(argv: string[]): DemoArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        "state-dir": { type: "string" },
        "session-key": { type: "string" },
        turns: { type: "string" },
        "context-window": { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        compaction: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (e) {
    throw new DemoArgsError((e as Error).message);
  }
  const int = (name: string, min: number, max: number): number | null => {
    const raw = values[name];
    if (raw === undefined) return null;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new DemoArgsError(`--${name} expects a whole number ${min}..${max}, got "${String(raw)}"`);
    return n;
  };
  const str = (name: string): string | null => {
    const raw = values[name];
    if (raw === undefined) return null;
    if (typeof raw !== "string" || raw.trim() === "") throw new DemoArgsError(`--${name} expects a non-empty value`);
    return raw;
  };
  const provider = str("provider");
  const model = str("model");
  if ((provider === null) !== (model === null)) throw new DemoArgsError("--provider and --model go together");
  const compaction = str("compaction") ?? "host";
  if (compaction !== "host" && compaction !== "checkpoint") throw new DemoArgsError(`--compaction expects host or checkpoint, got "${compaction}"`);
  return {
    compaction,
    stateDir: str("state-dir"),
    sessionKey: str("session-key") ?? "agent:main:demo:direct:1",
    turns: int("turns", 1, 200) ?? 14,
    provider,
    model,
    contextWindow: int("context-window", 1000, 10_000_000),
    help: values.help === true,
  };
}
