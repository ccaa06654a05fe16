/**
 * The context manager inside the stock `pi` CLI: `pi --print -e context-manager.ts -e <faux
 * provider>` with a 2k-token window. A prompt above 80% makes the gauge line (with "Checkpoint
 * saved") reach the provider, which echoes it on stdout, and writes cp_001 under
 * OPENCLAW_STATE_DIR; a short prompt gets no gauge.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { REPO, run } from "./run.js";

const PI = join(REPO, "node_modules", ".bin", "pi");
const CONTEXT_MANAGER = join(REPO, "src", "agents", "pi-extensions", "context-manager.ts");
const FAUX_PROVIDER = join(REPO, "test", "cli", "fixtures", "faux-gauge-provider.ts");

async function piPrint(prompt: string) {
  const root = await mkdtemp(join(tmpdir(), "cm-pi-cli-"));
  const agentDir = join(root, "agent");
  const stateDir = join(root, "state");
  const cwd = join(root, "project");
  for (const d of [agentDir, stateDir, cwd]) mkdirSync(d, { recursive: true });
  // the 2k window is below pi's default compaction reserve: keep this test about the gauge
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false } }));
  const args = ["--print", "--offline", "--no-session", "--no-extensions", "--no-skills", "--no-context-files", "--no-prompt-templates", "--no-themes", "--no-tools"];
  args.push("-e", CONTEXT_MANAGER, "-e", FAUX_PROVIDER, "--provider", "fauxcli", "--model", "tiny", prompt);
  const result = await run(PI, args, { cwd, env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, OPENCLAW_STATE_DIR: stateDir } });
  return { ...result, root, stateDir, cwd };
}

describe("pi CLI with the context manager (-e)", () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("a prompt above 80% of the window: the provider sees the gauge and a checkpoint is written", async () => {
    const big = `Please review this request. ${"word ".repeat(1300)}`; // ~1.6k tokens of a 2k window
    const [high, low] = await Promise.all([piPrint(big), piPrint("hello")]);
    roots.push(high.root, low.root);
    expect(high.code).toBe(0);
    expect(high.stdout).toMatch(/provider saw gauge: \[Context: (8\d|9\d)% \| 2k\/2k tokens( \| [^\]]+)? \| Checkpoint saved\]/);
    const dir = checkpointSessionDir(high.stateDir, `pi:${high.cwd}`);
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(["cp_001.yaml", "_latest.json"]));
    expect(low.code).toBe(0);
    expect(low.stdout.trim()).toBe("provider saw no gauge");
  });
});
