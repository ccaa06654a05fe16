// Compat (issue 25): the plugin with `compaction: "checkpoint"` inside a real OpenClaw 2026.9
// gateway, only the model mocked (fixtures/loopback-model.mjs; a request without tools is a
// summarization). `openclaw sessions compact` must compact through the plugin's own compact()
// (ownsCompaction): no summarization request, the compaction checkpoint written, and the next
// turn's model request carries our summary in place of the older turns and no restore block.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { checkpointTexts } from "./fixtures/checkpoints.mjs";
import { openclaw, startGateway, turnRequests } from "./fixtures/gateway.mjs";
import { systemPromptOf } from "./fixtures/loopback-model.mjs";
import { OPENCLAW_VERSION } from "./openclaw-internals.mjs";

const KEY = "agent:main:compat-own-compaction";
const RESTORE = "[Post-compaction checkpoint restore]";
const SUMMARY = "[Compaction summary: context manager checkpoint]";
/** the plugin's lines of the gateway log (its debug lines with OPENCLAW_CONTEXT_DEBUG=1), for a failure's message */
const ours = (log) => log.split("\n").filter((l) => /context-manager|context manager/i.test(l)).slice(-40).join("\n");

describe(`openclaw@${OPENCLAW_VERSION} gateway, compaction "checkpoint": sessions compact without a model call`, { timeout: 1_800_000 }, () => {
  let gw;
  let env;
  let cmDir;
  let model;

  before(async () => {
    gw = await startGateway("cm-compat-own-", { compaction: "checkpoint" });
    ({ env, cmDir, model } = gw);
  });

  after(async () => {
    await gw?.stop();
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

    const turn = await turnRequests(gw, KEY, "Where were we?");
    for (const r of turn) {
      const all = JSON.stringify(r.messages);
      assert.ok(all.includes(SUMMARY.slice(1, 20)), `the request carries our compaction summary; compact said: ${compact.out.slice(-600)}; the plugin logged: ${ours(gw.log)}`);
      assert.ok(!systemPromptOf(r).includes(RESTORE), "no restore block after a checkpoint compaction");
      // the compacted first turn is no longer a message of its own (the summary quotes it as the goal)
      const text = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p?.text ?? "").join(""));
      // (OpenClaw puts an envelope before a user's text: look for the text, outside the summary message)
      const users = r.messages.filter((m) => m.role === "user" && !text(m).includes(SUMMARY.slice(1, 20)));
      assert.equal(users.filter((m) => text(m).includes("Please READ:notes.txt")).length, 0, `the compacted turn is replaced by the summary: ${JSON.stringify(users.map((m) => text(m).slice(0, 80)))}`);
      assert.ok(users.some((m) => text(m).includes("And what about taxes?")), `the kept turn is sent as it is: ${JSON.stringify(r.messages.map((m) => [m.role, text(m).slice(0, 80)]))}`);
    }
    assert.equal(model.requests.filter((r) => !r.tools?.length).length, 0, "no summarization request in the whole run");
    assert.doesNotMatch(gw.log, /degraded to|\[context-manager\] \w+ failed/);
  });
});
