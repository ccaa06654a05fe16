/** Runs a child process to completion and collects its output (for the CLI, demo and pi tests). */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

export const REPO = join(import.meta.dirname, "..", "..");
export const CLI_BIN = join(REPO, "bin", "openclaw-context.js");

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI through its bin shim, as a user runs it. */
export function cli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return run(process.execPath, [CLI_BIN, ...args], { env });
}

/** stderr that is a stack trace rather than one clear line */
export const STACK_TRACE_RE = /^\s+at .+\(.+:\d+:\d+\)|^\s+at .+:\d+:\d+$/m;
