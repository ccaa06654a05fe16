/**
 * `openclaw-context list | head -1`: a reader that goes away before the CLI writes closes its
 * stdout (EPIPE). The real bin, as a child process whose stdout pipe is closed at once: it exits
 * with the command's own status and prints nothing on stderr (it printed a 25-line
 * `Error: write EPIPE` stack trace and exited 1). The same with stderr closed too.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { makeDraft } from "../checkpoint/helpers.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";
import { CLI_BIN, REPO, run, STACK_TRACE_RE } from "./run.js";

/** The bin with its stdout (and optionally stderr) read end closed before it starts writing. */
function cliIntoClosedPipe(args: string[], closeStderr = false): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    if (closeStderr) child.stderr.destroy();
    let stderr = "";
    if (!closeStderr) child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

const KEY = "agent:main:telegram:direct:42";

describe("openclaw-context on a closed pipe", () => {
  let root: string;
  let state: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cm-cli-pipe-"));
    state = join(root, "state");
    for (let i = 0; i < 3; i++) await writeCheckpoint({ stateDir: state }, makeDraft({ sessionKey: KEY, trigger: "compaction", inputTokens: 30_000 + i }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("list, list --json, status --breakdown, show and --help exit 0 with nothing on stderr", async () => {
    const s = ["--state-dir", state];
    const runs = await Promise.all([
      cliIntoClosedPipe(["list", ...s]),
      cliIntoClosedPipe(["list", ...s, "--json"]),
      cliIntoClosedPipe(["status", ...s, "--session-key", KEY, "--breakdown"]),
      cliIntoClosedPipe(["show", "cp_001", ...s, "--session-key", KEY]),
      cliIntoClosedPipe(["--help"]),
    ]);
    for (const r of runs) {
      expect(r.stderr).not.toMatch(STACK_TRACE_RE);
      expect(r.stderr).toBe("");
      expect(r.signal).toBeNull();
      expect(r.code).toBe(0);
    }
  });

  it("with stderr closed too, a failing command keeps its own status and does not crash", async () => {
    const [ok, usage] = await Promise.all([cliIntoClosedPipe(["list", "--state-dir", state], true), cliIntoClosedPipe(["no-such-command"], true)]);
    expect(ok.code).toBe(0);
    // a bad command line is 2; a crash on the unhandled EPIPE would be 1
    expect(usage.code).toBe(2);
  });

  it("`list | head -1` in a shell: the first line, status 0 through pipefail, nothing on stderr", async () => {
    const r = await run("bash", ["-c", `set -o pipefail; "${process.execPath}" "${CLI_BIN}" list --state-dir "${state}" | head -1`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(KEY);
  });
});
