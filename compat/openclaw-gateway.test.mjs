// Compat: the plugin inside a real OpenClaw 2026.9 gateway, end to end, with only the model
// mocked (fixtures/loopback-model.mjs, an OpenAI-compatible server on 127.0.0.1). Turns come
// from OpenClaw's own CLI (`openclaw agent --session-key …`), the manual compaction from
// `openclaw sessions compact` — each turn and the compaction get their own engine instance, as
// OpenClaw makes them. Checked on what the user and the model get: no turn degraded to the legacy
// engine, the tools a turn used in the checkpoint, the gauge against the model's window (no false
// 80% checkpoint), the post-compaction restore in the next turn's system prompt and only there.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkpointTexts } from "./fixtures/checkpoints.mjs";
import { openclaw, startGateway, turnRequests, WINDOW } from "./fixtures/gateway.mjs";
import { systemPromptOf } from "./fixtures/loopback-model.mjs";
import { OPENCLAW_VERSION } from "./openclaw-internals.mjs";

const KEY = "agent:main:compat-gateway";
const RESTORE = "[Post-compaction checkpoint restore]";

describe(`openclaw@${OPENCLAW_VERSION} gateway: turns, sessions compact, next turn`, { timeout: 1_800_000 }, () => {
  let gw;
  let env;
  let cmDir;

  before(async () => {
    gw = await startGateway("cm-compat-gw-");
    ({ env, cmDir } = gw);
  });

  after(async () => {
    await gw?.stop();
  });

  it("two turns with a tool call: captured on the plugin route, gauged against the model's window, no turn degraded", async () => {
    const first = await openclaw(["agent", "--session-key", KEY, "-m", "Please READ:notes.txt and tell me where the rounding lives"], env);
    assert.equal(first.code, 0, first.out.slice(-2000));
    const second = await openclaw(["agent", "--session-key", KEY, "-m", "Now READ:invoice.ts and fix the rounding"], env);
    assert.equal(second.code, 0, second.out.slice(-2000));
    assert.doesNotMatch(gw.log + first.out + second.out, /degraded to/);
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

    for (const r of await turnRequests(gw, KEY, "Where were we?")) {
      const system = systemPromptOf(r);
      assert.ok(system.includes(RESTORE), "every request of the turn after the compaction carries the restore");
      const block = system.slice(system.indexOf(RESTORE));
      assert.match(block, /Working on: "Now READ:invoice\.ts and fix the rounding"/);
      assert.match(block, /notes\.txt/);
    }

    for (const r of await turnRequests(gw, KEY, "Thanks")) assert.ok(!systemPromptOf(r).includes(RESTORE), "the restore ends with the turn after the compaction");
    assert.doesNotMatch(gw.log, /degraded to|\[context-manager\] \w+ failed/);
  });
});
