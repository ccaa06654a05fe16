/**
 * `pi install /path/to/clone` as the README says, the way a user does it: a clone of the
 * repository (the committed files, no dist/), its dependencies installed, no build step; pi
 * records the path and must load the extension through the `pi` manifest (pi-extension.js: the
 * TypeScript source when dist/ is absent). Before, pi reported "Installed" and loaded nothing.
 * Heavy (git clone + a real pi run): `npm run test:heavy`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { REPO, run } from "../cli/run.js";
import { FAUX_GAUGE_PROVIDER, PI } from "../pi/pi-env.js";
import { CHILD_TIMEOUT_MS, TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const HEAVY = process.env.VITEST_HEAVY === "1";

describe.skipIf(!HEAVY)("pi install from a clone (no build)", () => {
  const root = mkdtempSync(join(tmpdir(), "cm-clone-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("loads the extension: the gauge reaches the model and a checkpoint is written", async () => {
    const clone = join(root, "clone");
    const cloned = await run("git", ["clone", "--quiet", "--no-hardlinks", REPO, clone], { timeoutMs: CHILD_TIMEOUT_MS });
    expect(cloned.code, cloned.stderr).toBe(0);
    expect(existsSync(join(clone, "dist"))).toBe(false);
    // `npm ci` in the clone: the same dependency tree, linked instead of downloaded again
    symlinkSync(join(REPO, "node_modules"), join(clone, "node_modules"));
    const agentDir = join(root, "agent");
    const cwd = join(root, "work");
    mkdirSync(agentDir);
    mkdirSync(cwd);
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
    const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir, OPENCLAW_STATE_DIR: join(root, "pi-state") };
    const inst = await run(PI, ["install", clone], { cwd, env, timeoutMs: CHILD_TIMEOUT_MS });
    expect(inst.code, inst.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).packages).toHaveLength(1);
    const big = `Please review this request. ${"word ".repeat(1300)}`;
    const args = ["-p", "--no-session", "--offline", "--no-skills", "--no-context-files", "--no-prompt-templates", "--no-themes", "--no-tools"];
    const res = await run(PI, [...args, "-e", FAUX_GAUGE_PROVIDER, "--provider", "fauxcli", "--model", "tiny", big], { cwd, env, timeoutMs: CHILD_TIMEOUT_MS });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/provider saw gauge: \[Context: \d+% \| 2k\/2k tokens( \| [^\]]+)? \| Checkpoint saved\]/);
    expect(existsSync(join(checkpointSessionDir(join(root, "pi-state"), `pi:${cwd}`), "cp_001.yaml"))).toBe(true);
  }, 3 * TEST_TIMEOUT_MS);
});
