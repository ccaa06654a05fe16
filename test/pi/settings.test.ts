/**
 * Settings for pi users: the `contextManager` key of pi's settings.json (global agent dir, then
 * the project's .pi/settings.json), validated like OpenClaw's config; read by the real pi CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadPiContextManagerConfig, PiSettingsError } from "../../src/agents/pi-extensions/context-manager-session.js";
import { run } from "../cli/run.js";
import { CONTEXT_MANAGER_TS, FAUX_GAUGE_PROVIDER, makePiHome, PI, type PiHome } from "./pi-env.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const dirs: string[] = [];
function layout(global?: unknown, project?: unknown) {
  const root = mkdtempSync(join(tmpdir(), "cm-pi-settings-"));
  dirs.push(root);
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  if (global !== undefined) writeFileSync(join(agentDir, "settings.json"), typeof global === "string" ? global : JSON.stringify(global));
  if (project !== undefined) writeFileSync(join(cwd, ".pi", "settings.json"), typeof project === "string" ? project : JSON.stringify(project));
  return { agentDir, cwd };
}

describe("pi settings (contextManager key)", () => {
  const homes: PiHome[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    for (const h of homes) h.cleanup();
  });

  it("defaults without files; global then project, key by key; pi's own keys ignored", () => {
    const none = layout();
    expect(loadPiContextManagerConfig(none.cwd, none.agentDir).gaugeThreshold).toBe(0.7);
    const both = layout(
      { theme: "dark", contextManager: { retention: 9, restoreMaxTokens: 600 } },
      { contextManager: { restoreMaxTokens: 500, noteTool: true } },
    );
    const cfg = loadPiContextManagerConfig(both.cwd, both.agentDir);
    expect([cfg.retention, cfg.restoreMaxTokens, cfg.noteTool]).toEqual([9, 500, true]);
  });

  it("the same validation as the OpenClaw config, naming the file and the key", () => {
    const bad = layout({ contextManager: { retention: 0 } });
    expect(() => loadPiContextManagerConfig(bad.cwd, bad.agentDir)).toThrow(PiSettingsError);
    expect(() => loadPiContextManagerConfig(bad.cwd, bad.agentDir)).toThrow(
      `${join(bad.agentDir, "settings.json")}: contextManager.retention: expected 1..10000, got 0`,
    );
    const unknown = layout(undefined, { contextManager: { gauge: 0.5 } });
    expect(() => loadPiContextManagerConfig(unknown.cwd, unknown.agentDir)).toThrow(/\.pi\/settings\.json: contextManager\.gauge: unknown key/);
    const merged = layout({ contextManager: { gaugeThreshold: 0.75 } }, { contextManager: { checkpointThreshold: 0.72 } });
    expect(() => loadPiContextManagerConfig(merged.cwd, merged.agentDir)).toThrow(/contextManager\.gaugeThreshold: must not exceed checkpointThreshold/);
    const broken = layout("{ not json");
    expect(() => loadPiContextManagerConfig(broken.cwd, broken.agentDir)).toThrow(/settings\.json: not valid JSON/);
  });

  it("the pi CLI applies the project settings, and reports invalid ones once and runs without the manager", async () => {
    // the 2k window is below pi's default compaction reserve: keep this test about settings
    const settings = { compaction: { enabled: false } };
    const [ok, bad] = await Promise.all([makePiHome({ settings }), makePiHome({ settings })]);
    homes.push(ok, bad);
    mkdirSync(join(ok.cwd, ".pi"), { recursive: true });
    writeFileSync(join(ok.cwd, ".pi", "settings.json"), JSON.stringify({ contextManager: { gaugeThreshold: 0, checkpointThreshold: 0.99 } }));
    writeFileSync(join(bad.agentDir, "settings.json"), JSON.stringify({ ...settings, contextManager: { gaugeThreshold: "high" } }));
    const piPrint = (h: PiHome) =>
      run(PI, ["-p", "--no-session", ...h.baseArgs([CONTEXT_MANAGER_TS], FAUX_GAUGE_PROVIDER), "hello"], {
        cwd: h.cwd,
        env: h.env,
        timeoutMs: CHILD_TIMEOUT_MS,
      });
    const [okRun, badRun] = await Promise.all([piPrint(ok), piPrint(bad)]);
    expect(okRun.code, okRun.stderr).toBe(0);
    expect(okRun.stdout).toMatch(/provider saw gauge: \[Context: \d+% \| /);
    expect(badRun.code, badRun.stderr).toBe(0);
    expect(badRun.stdout.trim()).toBe("provider saw no gauge");
    const warnings = badRun.stderr.split("\n").filter((l) => l.includes("[context-manager]"));
    expect(warnings).toEqual([
      `[context-manager] disabled: ${join(bad.agentDir, "settings.json")}: contextManager.gaugeThreshold: expected a number, got the string "high"`,
    ]);
  }, TEST_TIMEOUT_MS);
});
