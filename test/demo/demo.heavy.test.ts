/**
 * `npm run demo` smoke test: the demo as a child process on the faux model crosses the gauge,
 * the auto-80pct checkpoint and a compaction, shows both restore blocks, and leaves a state dir
 * the CLI verifies. Also: a real provider without its key is refused with exit 2 (no network).
 */
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, REPO, run, STACK_TRACE_RE } from "../cli/run.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

const TSX = join(REPO, "node_modules", ".bin", "tsx");

describe("npm run demo", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("runs the scripted session through gauge, checkpoints, compaction, /compact and /new", async () => {
    const root = await mkdtemp(join(tmpdir(), "cm-demo-"));
    dirs.push(root);
    const stateDir = join(root, "state");
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/ANTHROPIC/i.test(k)) env[k] = v;
    // the key refusal runs beside the demo (both are child processes; no network either way)
    const [r, refused] = await Promise.all([
      // generous kill timers: a loaded CI machine is slow, and speed is measured in the bench, not here
      run(TSX, ["src/demo/main.ts", "--state-dir", stateDir, "--turns", "14"], { timeoutMs: CHILD_TIMEOUT_MS }),
      run(TSX, ["src/demo/main.ts", "--provider", "anthropic", "--model", "claude-sonnet-4-5"], { env, timeoutMs: CHILD_TIMEOUT_MS }),
    ]);
    // a real provider without its API key: one line, exit 2
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).not.toMatch(STACK_TRACE_RE);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain('no API key for provider "anthropic"');
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(/gauge +\[Context: 7\d% \| \d+k\/16k tokens( \| [a-z -]+ \d+%( \([^)]+ \d+%\))?)?\]/);
    // the breakdown, printed once at the 80% checkpoint
    expect(out.match(/what fills the window/g)).toHaveLength(1);
    expect(out).toMatch(/\n {6}Context breakdown: \d+k tokens \(\d+% of 16k\)/);
    expect(out).toMatch(/\n {6}Largest:\n {8}1\. /);
    // the spec's line, then what dominates the window (issue 27), then "Checkpoint saved"
    expect(out).toMatch(/gauge +\[Context: \d+% \| \d+k\/16k tokens( \| [a-z -]+ \d+%( \([^)]+ \d+%\))?)? \| Checkpoint saved\]/);
    expect(out).toContain("trigger=auto-80pct");
    expect(out).toMatch(/compaction \(threshold\): before: \d+k tokens/);
    expect(out).toMatch(/compaction \(manual\)/);
    // system events carry a "[<ISO time>] " stamp since the 2026.9.6 seams
    expect(out).toMatch(/│ System: (\[[0-9TZ:-]+\] )?\[Post-compaction checkpoint restore\]/);
    expect(out).toMatch(/│ System: (\[[0-9TZ:-]+\] )?\[Session resume checkpoint restore\]/);
    expect(out).toMatch(/tool +read +src\/maths\.ts ✗ ENOENT/);
    expect(out).toMatch(/tool +edit +src\/math\.ts ✓/);
    // between /new and the resume the demo edits src/math.ts outside the session: the resume block says so
    expect(out).toContain("outside  src/math.ts edited outside the session");
    const resumeBlock = out.slice(out.indexOf("[Session resume checkpoint restore]"));
    expect(resumeBlock).toContain("│ System: Workspace changed since the checkpoint:");
    expect(resumeBlock).toContain('│ System: - "changed: src/math.ts (not by the session)"');
    // the post-compaction blocks (nothing had moved) carry no drift section
    expect(out.slice(0, out.indexOf("[Session resume checkpoint restore]"))).not.toContain("Workspace changed since the checkpoint:");
    // the state dir it names is the one we passed, and it verifies
    const named = /state dir \(kept\): (.+)$/m.exec(out)?.[1];
    expect(named).toBe(stateDir);
    const verify = await cli(["verify", "--state-dir", named!]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^ok +agent:main:demo:direct:1 \(\d+ checkpoints, latest cp_\d{3}\)$/m);
    // the demo's last checkpoints (manual /compact, session end) record no breakdown: status shows the latest that has one, named
    const status = await cli(["status", "--breakdown", "--state-dir", stateDir, "--session-key", "agent:main:demo:direct:1"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/\n {2}breakdown of cp_\d{3} \(trigger (auto-80pct|compaction), [^)]+\): the latest checkpoint with one; cp_\d{3} recorded none\n/);
    expect(status.stdout).toMatch(/\n {2}Context breakdown: \d+k tokens \(\d+% of 16k\)/);
    expect(status.stdout).not.toContain("breakdown: not recorded");
    // the CLI commands the demo prints are ones the CLI accepts
    expect(out).toContain(`npm run cli -- verify --state-dir ${stateDir}`);
  });
});
