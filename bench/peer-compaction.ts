/**
 * `npx tsx bench/peer-compaction.ts --peer <pi-vcc dir or entry> [--peer-commit <sha>] [--windows 32000,64000]
 *   [--only <name substring>] [--out bench/peer-results.json]`
 *
 * Our "checkpoint" compaction and a peer's LLM-free compaction (pi-vcc), side by side in one
 * run (docs/compaction.md "Side by side with pi-vcc"). Per transcript of test/fixtures/transcripts
 * and window, two replays through the same host runner on the faux model:
 * - ours: `--compaction checkpoint` (the rest of the config at its defaults: offload on);
 * - ours-offload-off: the same with `offload: false`, so that the agent's input tokens differ
 *   from the peer run's by the compaction alone (the peer run has no offload: our manager is off);
 * - peer: `--peer-extension <peer>` (pi alone with the peer: our manager disabled, no safeguard).
 * Every compaction's summary is measured with the same fidelityV2, compactionMs and token
 * accounting, and again on what the agent saw at the next request (summary + kept messages:
 * pi-vcc keeps everything from the last user request on). A compaction the peer declined (pi's own model summary ran: the faux summarizer)
 * is counted apart and left out of the fidelity figures. Then summary-overlap at the real LLM
 * summaries' points of before-compaction: ours (restore block, compaction summary) and the
 * peer's summary of the same messages.
 *
 * A bench, not a test: the peer is not in this repository, nor on npm, nor in CI. Nothing of
 * it is copied: it is loaded from the given path by pi's extension loader.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { loadTranscript } from "../src/replay/transcript.js";
import { replayTranscript } from "../src/replay/replayer.js";
import type { ReplayReport } from "../src/replay/replay-report.js";
import { aggregateV2 } from "../src/replay/summary.js";
import { summaryOverlap } from "../src/replay/summary-overlap.js";
import { loadPeerExtension } from "../src/replay/peer-extension.js";
import { TRANSCRIPTS_DIR } from "./transcripts.js";

const REPO = resolve(import.meta.dirname, "..");
const TRANSCRIPTS = TRANSCRIPTS_DIR;
/** what the replay's faux summarizer answers: a compaction whose summary carries it was written by pi's model */
const FAUX_SUMMARY = "Replay summary (faux summarizer).";

function fail(msg: string): never {
  console.error(`peer-compaction: ${msg}`);
  process.exit(2);
}

function args(argv: string[]) {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const peer = get("--peer");
  if (!peer) fail("--peer <path> is required: a checkout of github.com/sting8k/pi-vcc (its package dir or index.ts), with node_modules resolving @mariozechner/pi-coding-agent");
  if (!existsSync(peer)) fail(`the peer path ${peer} does not exist (pi-vcc is not in this repository nor on npm: export a checkout there first)`);
  const windows = (get("--windows") ?? "32000").split(",").map(Number);
  if (windows.some((w) => !Number.isInteger(w) || w <= 0)) fail("--windows expects positive whole numbers, comma-separated");
  return { peer: resolve(peer), peerCommit: get("--peer-commit") ?? "unknown", windows, only: get("--only"), out: resolve(get("--out") ?? resolve(REPO, "bench/peer-results.json")) };
}

const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : null;
};

/** The side-by-side row of one replay. */
type Who = "ours" | "ours-offload-off" | "peer";

function optionsFor(who: Who, window: number, peer: string) {
  if (who === "peer") return { contextWindow: window, peerExtension: peer };
  return { contextWindow: window, compaction: "checkpoint" as const, ...(who === "ours-offload-off" ? { offload: false } : {}) };
}

function row(r: ReplayReport, who: Who, loadBefore: number[]) {
  const byModel = r.compactions.filter((c) => c.summaryText.includes(FAUX_SUMMARY));
  const own = r.compactions.filter((c) => !c.summaryText.includes(FAUX_SUMMARY));
  const v2 = own.flatMap((c) => (c.fidelityV2 ? [c.fidelityV2] : []));
  const a = v2.length ? aggregateV2(v2) : null;
  const tokens = own.map((c) => Math.ceil(c.summaryText.length / 4));
  const ms = r.compactions.map((c) => c.compactionMs);
  return {
    transcript: r.transcript,
    window: r.contextWindow,
    who,
    compactions: r.compactions.length,
    natural: r.compactionCount,
    /** compactions whose summary pi's model wrote (the peer returned none): not in the figures below */
    byModel: byModel.length,
    modifiedFiles: a ? { found: a.fileFound, expected: a.fileExpected, recallMin: a.fileRecallMin } : null,
    last3: a ? { complete: a.last3Blocks, of: v2.length, found: v2.reduce((n, f) => n + f.lastRequests.found, 0), expected: v2.reduce((n, f) => n + f.lastRequests.expected, 0) } : null,
    staleNextActions: a?.stale ?? null,
    /** the same two measures on what the agent saw at the next request: summary + kept messages */
    visibleAfter: (() => {
      const vs = own.flatMap((c) => (c.visibleAfter ? [c.visibleAfter] : []));
      return {
        of: vs.length,
        last3Complete: vs.filter((v) => v.lastRequests.found === v.lastRequests.expected).length,
        filesFound: vs.reduce((n, v) => n + v.modifiedFiles.found, 0),
        filesExpected: vs.reduce((n, v) => n + v.modifiedFiles.expected, 0),
      };
    })(),
    summaryTokens: { median: median(tokens), max: tokens.length ? Math.max(...tokens) : null },
    compactionMs: { p50: median(ms), max: ms.length ? Math.max(...ms) : null },
    agentInputTokens: r.inputTokensTotal,
    summarizerRequests: r.replay.summarizerRequests,
    summarizerInputTokens: r.replay.summarizerInputTokens,
    agentPlusSummarizerInputTokens: r.inputTokensWithSummarizer,
    overflowRejections: r.replay.overflowRejections,
    syntheticReplies: r.replay.syntheticReplies,
    durationMs: r.durationMs,
    load: { before: loadBefore, after: load() },
    errors: r.errors,
    summaries: r.compactions.map((c) => ({ final: c.final, trigger: c.trigger, compactionMs: c.compactionMs, fidelityV2: c.fidelityV2, visibleAfter: c.visibleAfter, summaryText: c.summaryText })),
  };
}

async function main() {
  const o = args(process.argv.slice(2));
  const peer = await loadPeerExtension(o.peer);
  const peerVersion = (() => {
    try {
      return (JSON.parse(readFileSync(resolve(o.peer, "package.json"), "utf8")) as { version?: string }).version ?? null;
    } catch {
      return null;
    }
  })();
  const files = readdirSync(TRANSCRIPTS)
    .filter((f) => f.endsWith(".json") && f !== "index.json" && !f.endsWith(".llm-summaries.json"))
    .filter((f) => !o.only || f.includes(o.only))
    .sort();
  const runs: ReturnType<typeof row>[] = [];
  for (const window of o.windows) {
    for (const f of files) {
      const t = loadTranscript(resolve(TRANSCRIPTS, f));
      for (const who of ["ours", "ours-offload-off", "peer"] as const) {
        const before = load();
        const r = await replayTranscript(t, optionsFor(who, window, o.peer));
        const x = row(r, who, before);
        runs.push(x);
        console.log(
          `${f} @${window} ${who}: ${x.compactions} compactions (${x.byModel} by pi's model), files ${x.modifiedFiles?.found}/${x.modifiedFiles?.expected}, last-3 ${x.last3?.complete}/${x.last3?.of}, stale ${x.staleNextActions}, visible after: last-3 ${x.visibleAfter.last3Complete}/${x.visibleAfter.of} files ${x.visibleAfter.filesFound}/${x.visibleAfter.filesExpected}, summary tok median ${x.summaryTokens.median} max ${x.summaryTokens.max}, compaction ms p50 ${x.compactionMs.p50} max ${x.compactionMs.max}, agent+summarizer ${x.agentPlusSummarizerInputTokens}, ${x.durationMs} ms, load ${x.load.before.join(" ")} -> ${x.load.after.join(" ")}`,
        );
      }
    }
  }
  // summary-overlap at the real LLM summaries' points
  const bc = resolve(TRANSCRIPTS, "badlogic__pi-mono__before-compaction.json");
  const messages = JSON.parse(readFileSync(bc, "utf8")) as unknown[];
  const { compactions } = JSON.parse(readFileSync(bc.replace(/\.json$/, ".llm-summaries.json"), "utf8")) as {
    compactions: Array<{ messagesBefore: number; summary: string; summaryTokensApprox?: number }>;
  };
  const overlap = (await summaryOverlap(messages, compactions, peer)).map((p) => ({
    messagesBefore: p.messagesBefore,
    named: p.named,
    llmSummaryTokens: p.summaryTokens,
    restoreBlock: { in: p.inBlock, tokens: p.blockTokens },
    compactionSummary: { in: p.compactionSummary.in, tokens: p.compactionSummary.tokens, maxTokens: p.compactionSummary.maxTokens },
    peer: p.peer ? { in: p.peer.in, tokens: p.peer.tokens, missing: p.peer.missing } : null,
  }));
  for (const p of overlap) {
    console.log(`overlap @${p.messagesBefore}: named ${p.named}; block ${p.restoreBlock.in} (${p.restoreBlock.tokens} tok); compaction summary ${p.compactionSummary.in} (${p.compactionSummary.tokens} tok); peer ${p.peer?.in ?? "-"} (${p.peer?.tokens ?? "-"} tok)`);
  }
  const out = {
    command: `npx tsx bench/peer-compaction.ts ${process.argv.slice(2).join(" ")}`,
    date: new Date().toISOString(),
    peer: { name: "pi-vcc", repo: "github.com/sting8k/pi-vcc", commit: o.peerCommit, version: peerVersion, entry: peer.path },
    node: process.version,
    runs,
    summaryOverlap: overlap,
  };
  writeFileSync(o.out, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`written ${o.out}`);
}

main().catch((e) => {
  console.error(`peer-compaction failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
