// Compat (issue 25): the plugin with `compaction: "checkpoint"` inside a real OpenClaw 2026.9
// gateway, only the model mocked (fixtures/loopback-model.mjs; a request without tools is a
// summarization). `openclaw sessions compact` must compact through the plugin's own compact()
// (ownsCompaction): no summarization request, the compaction checkpoint written, and the next
// turn's model request carries our summary in place of the older turns and no restore block.
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
const KEY = "agent:main:compat-own-compaction";
const WINDOW = 32_000;
const RESTORE = "[Post-compaction checkpoint restore]";
const SUMMARY = "[Compaction summary: context manager checkpoint]";

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

describe(`openclaw@${OPENCLAW_VERSION} gateway, compaction "checkpoint": sessions compact without a model call`, { timeout: 900_000 }, () => {
  const root = mkdtempSync(join(tmpdir(), "cm-compat-own-"));
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
        entries: { "context-manager": { enabled: true, config: { stateDir: cmDir, compaction: "checkpoint" } } },
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

  it("three turns, sessions compact: our compaction, no summarization request; the next turn sends our summary, no restore", async () => {
    for (const m of ["Please READ:notes.txt and tell me where the rounding lives", "Now READ:invoice.ts and fix the rounding", "And what about taxes?"]) {
      const r = await openclaw(["agent", "--session-key", KEY, "-m", m], env);
      assert.equal(r.code, 0, r.out.slice(-2000));
    }
    const before = model.requests.length;
    const compact = await openclaw(["sessions", "compact", KEY, "--json"], env);
    assert.equal(compact.code, 0, compact.out.slice(-2000));
    // no summarization: every request since has tools (a summarization request has none)
    assert.equal(model.requests.slice(before).filter((r) => !r.tools?.length).length, 0);
    const cps = checkpointTexts(cmDir);
    assert.ok(cps.some((c) => /trigger: "compaction"/.test(c)), "the compaction checkpoint is written");

    const sent = model.requests.length;
    const next = await openclaw(["agent", "--session-key", KEY, "-m", "Where were we?"], env);
    assert.equal(next.code, 0, next.out.slice(-2000));
    const turn = model.requests.slice(sent);
    assert.ok(turn.length > 0);
    for (const r of turn) {
      const all = JSON.stringify(r.messages);
      assert.ok(all.includes(SUMMARY.slice(1, 20)), "the request carries our compaction summary");
      assert.ok(!systemPromptOf(r).includes(RESTORE), "no restore block after a checkpoint compaction");
      // the compacted first turn is no longer a message of its own (the summary quotes it as the goal)
      const text = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p?.text ?? "").join(""));
      // (OpenClaw puts an envelope before a user's text: look for the text, outside the summary message)
      const users = r.messages.filter((m) => m.role === "user" && !text(m).includes(SUMMARY.slice(1, 20)));
      assert.equal(users.filter((m) => text(m).includes("Please READ:notes.txt")).length, 0, `the compacted turn is replaced by the summary: ${JSON.stringify(users.map((m) => text(m).slice(0, 80)))}`);
      assert.ok(users.some((m) => text(m).includes("And what about taxes?")), `the kept turn is sent as it is: ${JSON.stringify(r.messages.map((m) => [m.role, text(m).slice(0, 80)]))}`);
    }
    assert.equal(model.requests.filter((r) => !r.tools?.length).length, 0, "no summarization request in the whole run");
    assert.doesNotMatch(gatewayLog, /degraded to|\[context-manager\] \w+ failed/);
  });
});
