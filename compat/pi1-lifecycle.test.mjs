// Compat: the context manager's pi extension inside the real pi 1.x CLI (@earendil-works/pi-coding-agent,
// its self-contained dist/bundle) under Node 24, in RPC mode on a faux provider with a 2k window:
// gauge + auto-80pct checkpoint, manual compaction writes the compaction checkpoint, the next request
// carries the post-compaction restore, and a new session on the same workspace gets the resume block.
// Offload (on by default), with pi's own read tool on a 200k faux model: a 8 KB read result reaches
// the model as handle + preview, and the model's artifact_fetch call greps its middle line back.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = dirname(HERE);
const PI_CLI = process.env.PI1_CLI ?? join(HERE, ".pi1", "package", "dist", "bundle", "cli.js");
const EXTENSION = join(REPO, "src", "agents", "pi-extensions", "context-manager.ts");
const PROVIDER = join(HERE, "fixtures", "faux-lifecycle-provider.ts");
const LIFECYCLE = { provider: PROVIDER, model: ["fauxcompat", "tiny"], tools: ["--no-tools"] };

/** One pi process in RPC mode; send() resolves with the command's response, turn() with the reply text. */
function startPi(root, run = LIFECYCLE) {
  const child = spawn(
    process.execPath,
    [PI_CLI, "--mode", "rpc", "--offline", "--no-session", "--no-extensions", "--no-skills", "--no-context-files",
      "--no-prompt-templates", "--no-themes", ...run.tools, "-e", EXTENSION, "-e", run.provider, "--provider", run.model[0], "--model", run.model[1]],
    { cwd: root.cwd, env: { ...process.env, PI_CODING_AGENT_DIR: root.agentDir, OPENCLAW_STATE_DIR: root.stateDir }, stdio: ["pipe", "pipe", "pipe"] },
  );
  const waiters = [];
  let stderr = "";
  let buf = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      for (const w of [...waiters]) if (w.match(event)) waiters.splice(waiters.indexOf(w), 1), w.resolve(event);
    }
  });
  const waitFor = (match, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${stderr}`)), 120_000);
      waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  let n = 0;
  return {
    async command(cmd) {
      const id = String(++n);
      const response = waitFor((e) => e.type === "response" && e.id === id, `response to ${cmd.type}`);
      child.stdin.write(`${JSON.stringify({ ...cmd, id })}\n`);
      return response;
    },
    /** a prompt, and the text of the assistant reply once the agent settled */
    async turn(message) {
      let reply = "";
      // the text of the last assistant message of the run (a tool round ends with a text reply)
      const replied = waitFor((e) => {
        if (e.type === "message_end" && e.message?.role === "assistant") {
          const text = (e.message.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
          if (text) reply = text;
        }
        return e.type === "agent_settled";
      }, "assistant reply");
      const settled = waitFor((e) => e.type === "agent_settled", "agent_settled");
      const response = await this.command({ type: "prompt", message });
      assert.equal(response.success, true, JSON.stringify(response));
      await replied;
      await settled;
      return reply;
    },
    stop() {
      child.stdin.end();
      child.kill();
    },
  };
}

function checkpoints(root) {
  const base = join(root.stateDir, "context", "checkpoints");
  if (!existsSync(base)) return [];
  return readdirSync(base).flatMap((d) =>
    readdirSync(join(base, d))
      .filter((f) => /^cp_\d+\.yaml$/.test(f))
      .sort()
      .map((f) => /trigger: *"?([a-z0-9-]+)/.exec(readFileSync(join(base, d, f), "utf8"))?.[1]),
  );
}

describe(`pi 1.x CLI (${PI_CLI.includes(".pi1") ? "@earendil-works/pi-coding-agent from compat/.pi1" : PI_CLI}) with the context manager`, () => {
  const root = { dir: mkdtempSync(join(tmpdir(), "cm-compat-pi1-")) };
  root.agentDir = join(root.dir, "agent");
  root.stateDir = join(root.dir, "state");
  root.cwd = join(root.dir, "project");
  for (const d of [root.agentDir, root.stateDir, root.cwd]) mkdirSync(d, { recursive: true });
  // auto-compaction off (a 2k window is below pi's reserve); manual compaction keeps the last turn
  writeFileSync(join(root.agentDir, "settings.json"), JSON.stringify({ compaction: { enabled: false, keepRecentTokens: 50 } }));
  after(() => rmSync(root.dir, { recursive: true, force: true }));

  it("80% checkpoint, compaction checkpoint, post-compaction restore, then resume in a new session", async () => {
    const pi = startPi(root);
    try {
      const first = await pi.turn(`Please review src/parser.ts. ${"word ".repeat(1300)}`);
      assert.match(first, /\[Context:/, "the provider saw the gauge");
      assert.deepEqual(checkpoints(root), ["auto-80pct"]);

      assert.match(await pi.turn(`Now fix the tokenizer. ${"detail ".repeat(250)}`), /^seen:/);
      const compacted = await pi.command({ type: "compact" });
      assert.equal(compacted.success, true, JSON.stringify(compacted));
      const written = checkpoints(root);
      assert.equal(written[0], "auto-80pct");
      assert.equal(written.at(-1), "compaction", `checkpoints: ${written.join(", ")}`);

      const afterCompaction = await pi.turn("Where were we?");
      assert.match(afterCompaction, /\[Post-compaction checkpoint restore\]/, "the next request carried the restore block");
    } finally {
      pi.stop();
    }

    const next = startPi(root); // a new pi session in the same workspace (same session key pi:<cwd>)
    try {
      const resumed = await next.turn("Hello again");
      assert.match(resumed, /\[Session resume checkpoint restore\]/, "the new session got the resume block");
    } finally {
      next.stop();
    }
  });

  it("offload (on by default): a large read result reaches the model as handle + preview, and artifact_fetch reads its middle back", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => (i === 200 ? "NEEDLE_91c2 the line in the middle" : `${String(i).padStart(4, "0")} config entry ok`));
    writeFileSync(join(root.cwd, "big.log"), `${lines.join("\n")}\n`);
    const pi = startPi(root, { provider: join(HERE, "fixtures", "faux-offload-provider.ts"), model: ["fauxoffload", "big"], tools: ["--tools", "read,artifact_fetch"] });
    try {
      const seen = await pi.turn("read big.log");
      const m = /^stored (ocm_artifact:v1:sha256:[0-9a-f]{64}) \((\d+) chars seen\)$/.exec(seen);
      assert.ok(m, `the model got the whole output: ${seen}`);
      assert.ok(Number(m[2]) < 1500, `preview bounded: ${seen}`);
      const fetched = await pi.turn(`fetch ${m[1]}`);
      assert.match(fetched, /^fetched: .*NEEDLE_91c2 the line in the middle/);
    } finally {
      pi.stop();
    }
  });
});
