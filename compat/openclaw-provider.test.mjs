// Compat (issue 39): the plugin as OpenClaw's compaction provider inside a real OpenClaw 2026.9
// gateway, only the model mocked (fixtures/loopback-model.mjs: a request without tools is a
// summarization). With `agents.defaults.compaction.provider: "context-manager"`, under the
// legacy context engine and under ours, the threshold (preflight) compaction, the overflow retry and
// `openclaw sessions compact` make no summarization request; the next model request carries our
// summary. A provider that throws (fixtures/faulty-provider) falls back to the model summary, as
// OpenClaw documents, and the session goes on.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { checkpointTriggers } from "./fixtures/checkpoints.mjs";
import { openclaw, startGateway, turnRequests } from "./fixtures/gateway.mjs";
import { OVERFLOW_MARK } from "./fixtures/loopback-model.mjs";
import { OPENCLAW_VERSION } from "./openclaw-internals.mjs";

const SUMMARY = "Compaction summary: context manager";
// the one line an operator adds; keepRecentTokens only makes this short session compactable
// (OpenClaw keeps 20,000 recent tokens by default, more than the whole session here)
const PROVIDER = { provider: "context-manager", keepRecentTokens: 1_000 };
const FAULTY = { id: "faulty-compaction", root: join(dirname(fileURLToPath(import.meta.url)), "fixtures", "faulty-provider") };
const summarizations = (model, from = 0) => model.requests.slice(from).filter((r) => !r.tools?.length).length;
const carries = (requests) => requests.some((r) => JSON.stringify(r.messages).includes(SUMMARY));
const ours = (log) => log.split("\n").filter((l) => /context-manager|context manager|compaction/i.test(l)).slice(-40).join("\n");
const compactions = (cmDir) => checkpointTriggers(cmDir).filter((t) => t === "compaction").length;

/** ~`tokens` tokens of distinct lines, for a file the model reads (the threshold compaction) */
const bulk = (tokens) => Array.from({ length: Math.ceil((tokens * 4) / 64) }, (_, i) => `line ${i}: ledger entry ${i * 7919} settles invoice ${i}`.padEnd(63, ".")).join("\n");

for (const route of [
  { name: "legacy engine", engine: false },
  { name: "our context engine", engine: true },
]) {
  describe(`openclaw@${OPENCLAW_VERSION} gateway, ${route.name}, compaction provider "context-manager": no summarization request`, { timeout: 1_800_000 }, () => {
    const KEY = `agent:main:compat-provider-${route.engine ? "engine" : "legacy"}`;
    let gw;

    before(async () => {
      gw = await startGateway("cm-compat-provider-", {}, { engine: route.engine, compaction: PROVIDER, verbose: true });
      // ~4k tokens: one read stays under the 24k prompt budget (the system prompt and tools take ~17k), two cross it
      writeFileSync(join(gw.workspace, "ledger.txt"), bulk(4_000));
      // distinct files for the threshold step, each read adds ~4k tokens to every later request
      for (let i = 1; i <= 5; i++) writeFileSync(join(gw.workspace, `ledger-${i}.txt`), bulk(4_000).replaceAll("ledger entry", `ledger ${i} entry`));
    });

    after(async () => {
      await gw?.stop();
    });

    it("sessions compact: our summary, no summarization; the next turn's request carries it", async () => {
      for (const m of ["Please READ:notes.txt and tell me where the rounding lives", "Now READ:invoice.ts and fix the rounding", "And what about taxes?"]) {
        const r = await openclaw(["agent", "--session-key", KEY, "-m", m], gw.env);
        assert.equal(r.code, 0, r.out.slice(-2000));
      }
      const from = gw.model.requests.length;
      const compact = await openclaw(["sessions", "compact", KEY, "--json"], gw.env);
      assert.equal(compact.code, 0, compact.out.slice(-2000));
      assert.equal(summarizations(gw.model, from), 0, `no summarization request: ${ours(gw.log)}`);
      assert.ok(compactions(gw.cmDir) >= 1, `the compaction checkpoint is written: ${ours(gw.log)}`);
      const turn = await turnRequests(gw, KEY, "Where were we?");
      assert.ok(carries(turn), `the next request carries our summary; compact said ${compact.out.slice(-600)}; log: ${ours(gw.log)}`);
    });

    it("the overflow retry: the refused request is compacted by the provider and retried; no summarization", async () => {
      const read = await openclaw(["agent", "--session-key", KEY, "-m", "Please READ:ledger.txt and check the totals"], gw.env);
      assert.equal(read.code, 0, read.out.slice(-2000));
      const from = gw.model.requests.length;
      const before = compactions(gw.cmDir);
      const turn = await turnRequests(gw, KEY, `Summarize the taxes again ${OVERFLOW_MARK}`);
      assert.ok(turn.length >= 2, `refused once, then retried: ${turn.length} requests; log: ${ours(gw.log)}`);
      assert.equal(summarizations(gw.model, from), 0, `no summarization request: ${ours(gw.log)}`);
      assert.ok(compactions(gw.cmDir) > before, `a compaction ran: ${ours(gw.log)}`);
      assert.ok(carries(turn.slice(1)), "the retried request carries our summary");
    });

    // OpenClaw 2026.9 with a provider set (safeguard mode) turns the runtime's in-attempt
    // auto-compaction off, and its in-attempt pre-prompt check only logs an over-budget request
    // ("[context-pressure-diagnostic] admitted provider attempt"): the threshold compaction runs
    // between turns (session maintenance after a turn, the CLI's preflight before one; both log
    // "preflightCompaction triggered") once the last reported usage reaches the window minus the
    // reserve (32,000 - 8,000 here; docs/compaction.md)
    it("the threshold compaction: large reads fill the window; compacted between turns with no summarization, the session goes on", async () => {
      const from = gw.model.requests.length;
      const before = compactions(gw.cmDir);
      const logFrom = gw.log.length;
      // the loopback model reads the path up to the next space: none of these ends in punctuation
      const turns = [1, 2, 3, 4, 5].map((i) => `Please READ:ledger-${i}.txt and check its totals`).concat(["Thanks, what next?"]);
      for (const m of turns) {
        const r = await openclaw(["agent", "--session-key", KEY, "-m", m], gw.env);
        assert.equal(r.code, 0, r.out.slice(-2000));
        if (compactions(gw.cmDir) > before) break;
      }
      assert.ok(compactions(gw.cmDir) > before, `a threshold compaction ran: ${ours(gw.log)}`);
      assert.match(gw.log.slice(logFrom), new RegExp(`preflightCompaction triggered: sessionKey=${KEY} .*trigger=tokens`), "the route is the token threshold (not the overflow retry)");
      assert.equal(summarizations(gw.model, from), 0, `no summarization request: ${ours(gw.log)}`);
      const turn = await turnRequests(gw, KEY, "Where are we now?");
      assert.ok(carries(turn), "the next request carries our summary");
      assert.doesNotMatch(gw.log, /Compaction provider "context-manager" (failed|returned empty|is configured but not registered)/);
    });
  });
}

describe(`openclaw@${OPENCLAW_VERSION} gateway, a compaction provider that throws`, { timeout: 1_800_000 }, () => {
  const KEY = "agent:main:compat-provider-fault";
  let gw;

  before(async () => {
    gw = await startGateway("cm-compat-provider-fault-", {}, { engine: true, compaction: { provider: FAULTY.id }, plugins: [FAULTY] });
  });

  after(async () => {
    await gw?.stop();
  });

  it("falls back to the model summary (one summarization request), and the session goes on", async () => {
    for (const m of ["Please READ:notes.txt and tell me where the rounding lives", "And what about taxes?"]) {
      const r = await openclaw(["agent", "--session-key", KEY, "-m", m], gw.env);
      assert.equal(r.code, 0, r.out.slice(-2000));
    }
    const from = gw.model.requests.length;
    const compact = await openclaw(["sessions", "compact", KEY, "--json"], gw.env);
    assert.equal(compact.code, 0, compact.out.slice(-2000));
    assert.match(gw.log, /Compaction provider "faulty-compaction" failed, falling back to LLM/);
    assert.ok(summarizations(gw.model, from) >= 1, `the model summarized instead: ${ours(gw.log)}`);
    const turn = await turnRequests(gw, KEY, "Where were we?");
    assert.ok(JSON.stringify(turn[0].messages).includes("Summary"), "the next request carries the model's summary");
    assert.doesNotMatch(gw.log, /\[context-manager\] \w+ failed/);
  });
});
