// Compat: the plugin inside a real OpenClaw 2026.9 gateway, end to end, with only the model
// mocked (fixtures/loopback-model.mjs, an OpenAI-compatible server on 127.0.0.1). Turns come
// from OpenClaw's own CLI (`openclaw agent --session-key …`), the manual compaction from
// `openclaw sessions compact` — each turn and the compaction get their own engine instance, as
// OpenClaw makes them. Checked on what the user and the model get: no turn degraded to the legacy
// engine, the tools a turn used in the checkpoint, the gauge against the model's window (no false
// 80% checkpoint), the post-compaction restore in the next turn's system prompt and only there.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { checkpointTexts } from "./fixtures/checkpoints.mjs";
import { startLoopbackModel, systemPromptOf } from "./fixtures/loopback-model.mjs";
import { OPENCLAW_ROOT, OPENCLAW_VERSION } from "./openclaw-internals.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const PLUGIN_ROOT = join(REPO, "src", "openclaw-plugin");
const CLI = join(OPENCLAW_ROOT, "openclaw.mjs");
const KEY = "agent:main:compat-gateway";
const WINDOW = 32_000;
const RESTORE = "[Post-compaction checkpoint restore]";

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Runs the openclaw CLI to completion (async: the model answers from this very process). */
function openclaw(args, env, timeoutMs = 240_000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe(`openclaw@${OPENCLAW_VERSION} gateway: turns, sessions compact, next turn`, { timeout: 900_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "cm-compat-gw-"));
  const cmDir = join(root, "cm");
  const workspace = join(root, "ws");
  let model;
  let gateway;
  let gatewayLog = "";
  let env;

  before(async () => {
    model = await startLoopbackModel();
    const port = await freePort();
    const stateDir = join(root, "openclaw");
    for (const d of [stateDir, workspace]) mkdirSync(d, { recursive: true });
    writeFileSync(join(workspace, "notes.txt"), "the invoice rounding lives in invoice.ts\n");
    const config = {
      models: {
        providers: {
          mock: {
            baseUrl: model.url,
            apiKey: "sk-loopback",
            api: "openai-completions",
            models: [{ id: "m1", name: "m1", contextWindow: WINDOW, maxTokens: 2000, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
          },
        },
      },
      agents: { defaults: { model: { primary: "mock/m1" }, workspace } },
      gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token", token: "compat-token" } },
      plugins: {
        load: { paths: [PLUGIN_ROOT] },
        allow: ["context-manager"],
        slots: { contextEngine: "context-manager" },
        entries: { "context-manager": { enabled: true, config: { stateDir: cmDir } } },
      },
    };
    writeFileSync(join(stateDir, "openclaw.json"), JSON.stringify(config, null, 2));
    env = { ...process.env, OPENCLAW_STATE_DIR: stateDir, HOME: root, NO_COLOR: "1" };
    gateway = spawn(process.execPath, [CLI, "gateway", "run"], { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    gateway.stdout.on("data", (d) => (gatewayLog += d));
    gateway.stderr.on("data", (d) => (gatewayLog += d));
    const start = Date.now();
    // "ready" comes after the channels and sidecars (a CLI connecting before that times out)
    while (!/\[gateway\] ready$/m.test(gatewayLog)) {
      if (gateway.exitCode !== null || Date.now() - start > 240_000) throw new Error(`gateway did not start:\n${gatewayLog.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  after(async () => {
    if (process.env.CM_COMPAT_GATEWAY_LOG) writeFileSync(process.env.CM_COMPAT_GATEWAY_LOG, gatewayLog);
    try {
      if (gateway?.pid) process.kill(-gateway.pid, "SIGKILL");
    } catch {}
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("two turns with a tool call: captured on the plugin route, gauged against the model's window, no turn degraded", async () => {
    const first = await openclaw(["agent", "--session-key", KEY, "-m", "Please READ:notes.txt and tell me where the rounding lives"], env);
    assert.equal(first.code, 0, first.out.slice(-2000));
    const second = await openclaw(["agent", "--session-key", KEY, "-m", "Now READ:invoice.ts and fix the rounding"], env);
    assert.equal(second.code, 0, second.out.slice(-2000));
    assert.doesNotMatch(gatewayLog + first.out + second.out, /degraded to/);
    // the model's prompt budget is ~12k of the 32k window: measured against it, turn 1 read 101% and wrote an 80% checkpoint
    assert.deepEqual(checkpointTexts(cmDir), []);
    const session = JSON.parse(readFileSync(join(cmDir, "context", "state", readdirSync(join(cmDir, "context", "state"))[0], "openclaw-session.json"), "utf8"));
    assert.equal(session.window, WINDOW);
    assert.equal(session.keys.length, 2);
  });

  it("openclaw sessions compact writes the compaction checkpoint; the next turn's system prompt carries the restore, the one after does not", async () => {
    const compact = await openclaw(["sessions", "compact", KEY, "--json"], env);
    assert.equal(compact.code, 0, compact.out.slice(-2000));
    const cps = checkpointTexts(cmDir);
    assert.equal(cps.length, 1);
    assert.match(cps[0], /trigger: "compaction"/);
    assert.match(cps[0], /files_read:\n\s+- "notes\.txt"/);
    assert.match(cps[0], /context_window: 32000/);

    const sent = model.requests.length;
    const third = await openclaw(["agent", "--session-key", KEY, "-m", "Where were we?"], env);
    assert.equal(third.code, 0, third.out.slice(-2000));
    const turn3 = model.requests.slice(sent);
    assert.ok(turn3.length > 0);
    for (const r of turn3) {
      const system = systemPromptOf(r);
      assert.ok(system.includes(RESTORE), "every request of the turn after the compaction carries the restore");
      const block = system.slice(system.indexOf(RESTORE));
      assert.match(block, /Working on: "Now READ:invoice\.ts and fix the rounding"/);
      assert.match(block, /notes\.txt/);
    }

    const sent4 = model.requests.length;
    const fourth = await openclaw(["agent", "--session-key", KEY, "-m", "Thanks"], env);
    assert.equal(fourth.code, 0, fourth.out.slice(-2000));
    for (const r of model.requests.slice(sent4)) assert.ok(!systemPromptOf(r).includes(RESTORE), "the restore ends with the turn after the compaction");
    assert.doesNotMatch(gatewayLog, /degraded to|\[context-manager\] \w+ failed/);
  });
});
