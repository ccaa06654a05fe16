/**
 * What both package tests check after building their package their own way: `pi install <path>`
 * in a fresh agent dir records it, and a `pi -p` run past the 2k faux window shows that the
 * extension loaded: the gauge reached the model and the 80% checkpoint was written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { run } from "../cli/run.js";
import { FAUX_GAUGE_PROVIDER, PI } from "../pi/pi-env.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

export async function expectPiInstallLoads(root: string, packagePath: string): Promise<void> {
  const agentDir = join(root, "agent");
  const cwd = join(root, "work");
  mkdirSync(agentDir);
  mkdirSync(cwd);
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, OPENCLAW_STATE_DIR: join(root, "pi-state") };
  const inst = await run(PI, ["install", packagePath], { cwd, env, timeoutMs: CHILD_TIMEOUT_MS });
  expect(inst.code, inst.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).packages).toHaveLength(1);
  const big = `Please review this request. ${"word ".repeat(1300)}`;
  const args = ["-p", "--no-session", "--offline", "--no-skills", "--no-context-files", "--no-prompt-templates", "--no-themes", "--no-tools"];
  const res = await run(PI, [...args, "-e", FAUX_GAUGE_PROVIDER, "--provider", "fauxcli", "--model", "tiny", big], { cwd, env, timeoutMs: CHILD_TIMEOUT_MS });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toMatch(/provider saw gauge: \[Context: \d+% \| 2k\/2k tokens( \| [^\]]+)? \| Checkpoint saved\]/);
  expect(existsSync(join(checkpointSessionDir(join(root, "pi-state"), `pi:${cwd}`), "cp_001.yaml"))).toBe(true);
}
