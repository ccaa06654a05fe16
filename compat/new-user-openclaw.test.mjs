// The OpenClaw route of the new-user check (new-user.sh): the tarball installed as the README says
// (`openclaw plugins install <tgz>`, no plugins.load.paths), a real 2026.9.6 gateway with only the
// model mocked, one turn and a manual compaction from OpenClaw's own CLI; the compaction checkpoint
// is on disk, the gauge recorded against the model's window, and `openclaw-context` from PATH
// (new-user.sh installed it globally) lists and shows them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkpointTexts } from "./fixtures/checkpoints.mjs";
import { openclaw, startGateway, WINDOW } from "./fixtures/gateway.mjs";
import { OPENCLAW_VERSION } from "./openclaw-internals.mjs";

const TARBALL = process.env.CM_TARBALL;
const KEY = "agent:main:new-user";

describe(`new user: openclaw@${OPENCLAW_VERSION} plugins install <tgz>, a gateway turn`, { skip: !TARBALL && "CM_TARBALL not set (run new-user.sh)", timeout: 1_800_000 }, () => {
  let gw;
  before(async () => {
    gw = await startGateway("cm-new-user-gw-", {}, { installTarball: TARBALL });
  });
  after(async () => {
    await gw?.stop();
  });

  it("installs from the tarball, runs a turn and a compaction through the plugin, and the CLI on PATH reads the checkpoint", async () => {
    console.log(`$ openclaw plugins install ${TARBALL} --force --accept-capabilities\n${gw.installOut.replace(/.*fs-safe native support.*\n/g, "").trim()}`);
    assert.match(gw.installOut, /Installed plugin: context-manager/);
    const turn = await openclaw(["agent", "--session-key", KEY, "-m", "Please READ:notes.txt and tell me where the rounding lives"], gw.env);
    assert.equal(turn.code, 0, turn.out.slice(-2000));
    assert.doesNotMatch(gw.log + turn.out, /degraded to|\[context-manager\][^\n]*failed/);
    const compact = await openclaw(["sessions", "compact", KEY, "--json"], gw.env);
    assert.equal(compact.code, 0, compact.out.slice(-2000));
    const cps = checkpointTexts(gw.cmDir);
    assert.equal(cps.length, 1, "one compaction checkpoint");
    assert.match(cps[0], /trigger: *"?compaction/);
    // the gauge: the plugin's reading of the turn, against the model's window
    const stateRoot = join(gw.cmDir, "context", "state");
    const session = JSON.parse(readFileSync(join(stateRoot, readdirSync(stateRoot)[0], "openclaw-session.json"), "utf8"));
    assert.equal(session.window, WINDOW);
    assert.ok(session.tokens > 0, `gauge reading ${session.tokens}`);
    const cliEnv = { ...process.env, OPENCLAW_STATE_DIR: gw.cmDir };
    const list = execFileSync("openclaw-context", ["list"], { env: cliEnv, encoding: "utf8" });
    console.log(`$ openclaw-context list\n${list.trim()}`);
    assert.match(list, /cp_001/);
    const status = execFileSync("openclaw-context", ["status"], { env: cliEnv, encoding: "utf8" });
    console.log(`$ openclaw-context status\n${status.trim()}`);
    assert.match(status, /\[Context: \d+%/);
  });
});
