/**
 * `npm run replay -- <transcript.json> [--window N] [--json out.json] [--no-final-compact] [--compaction host|checkpoint] [--peer-extension <path>] [--host-alone] [--against-host] [--trace out.jsonl]`
 * Replays a recorded Pi transcript through the real host runner and reports
 * handler cost, checkpoints, compactions, restore blocks, fidelity and what the session
 * costs under each provider's prompt caching (`--against-host`: also replays the host alone
 * and reports every cost as a ratio against it, `costVsHost` in the JSON).
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { loadTranscript } from "./transcript.js";
import { replayTranscript } from "./replayer.js";
import { formatSummary } from "./summary.js";
import { costRatios, formatCost } from "./cost-summary.js";

function usage(msg?: string): never {
  if (msg) console.error(`replay: ${msg}`);
  console.error("usage: npm run replay -- <transcript.json> [--window N] [--reserve N] [--keep-recent N] [--json out.json] [--no-final-compact] [--offload on|off] [--compaction host|checkpoint] [--smart-trim on|off] [--config <json of context-manager keys>] [--peer-extension <pi extension entry or package dir>] [--host-alone] [--against-host] [--trace <out.jsonl>]");
  process.exit(2);
}

function intArg(v: string | undefined, flag: string): number {
  const n = Number(v);
  if (!v || !Number.isInteger(n) || n <= 0) usage(`${flag} expects a positive whole number, got ${v ?? "nothing"}`);
  return n;
}

async function main(argv: string[]) {
  let file: string | undefined;
  let window: number | undefined;
  let reserve: number | undefined;
  let keepRecent: number | undefined;
  let json: string | undefined;
  let finalCompact = true;
  let offload: boolean | undefined;
  let compaction: "host" | "checkpoint" | undefined;
  let smartTrim: boolean | undefined;
  let contextManager: Record<string, unknown> | undefined;
  let peerExtension: string | undefined;
  let hostAlone = false;
  let againstHost = false;
  let trace: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--window") window = intArg(argv[++i], a);
    else if (a === "--reserve") reserve = intArg(argv[++i], a);
    else if (a === "--keep-recent") keepRecent = intArg(argv[++i], a);
    else if (a === "--json") json = argv[++i] ?? usage("--json expects a file name");
    else if (a === "--trace") trace = argv[++i] ?? usage("--trace expects a file name");
    else if (a === "--no-final-compact") finalCompact = false;
    else if (a === "--host-alone") hostAlone = true;
    else if (a === "--against-host") againstHost = true;
    else if (a === "--peer-extension") peerExtension = argv[++i] ?? usage("--peer-extension expects the path of a pi extension");
    else if (a === "--config") {
      try {
        contextManager = JSON.parse(argv[++i] ?? "") as Record<string, unknown>;
      } catch {
        usage("--config expects a JSON object of context-manager config keys");
      }
    } else if (a === "--compaction") {
      const v = argv[++i];
      if (v !== "host" && v !== "checkpoint") usage(`--compaction expects host or checkpoint, got ${v ?? "nothing"}`);
      compaction = v;
    } else if (a === "--offload") {
      const v = argv[++i];
      if (v !== "on" && v !== "off") usage(`--offload expects on or off, got ${v ?? "nothing"}`);
      offload = v === "on";
    }
    else if (a === "--smart-trim") {
      const v = argv[++i];
      if (v !== "on" && v !== "off") usage(`--smart-trim expects on or off, got ${v ?? "nothing"}`);
      smartTrim = v === "on";
    }
    else if (a.startsWith("--")) usage(`unknown option ${a}`);
    else if (!file) file = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!file) usage("missing transcript file");
  const transcript = loadTranscript(file);
  if (trace) {
    try {
      writeFileSync(trace, "");
    } catch (e) {
      usage(`--trace: cannot write ${trace} (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  const traceTo = (run: "ours" | "host") => (trace ? (row: object) => appendFileSync(trace, `${JSON.stringify({ run, ...row })}\n`) : undefined);
  const report = await replayTranscript(transcript, {
    contextWindow: window,
    reserveTokens: reserve,
    keepRecentTokens: keepRecent,
    finalCompact,
    offload,
    compaction,
    smartTrim,
    contextManager,
    peerExtension,
    hostAlone,
    costTrace: traceTo(hostAlone ? "host" : "ours"),
    onProgress: (done, total) => {
      if (process.stderr.isTTY) process.stderr.write(`\r  turn ${done}/${total}`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  console.log(formatSummary(report));
  let costVsHost: ReturnType<typeof costRatios> | undefined;
  if (againstHost && !hostAlone) {
    const host = await replayTranscript(transcript, { contextWindow: window, reserveTokens: reserve, keepRecentTokens: keepRecent, finalCompact, hostAlone: true, costTrace: traceTo("host") });
    costVsHost = costRatios(report.cost, host.cost);
    console.log("  host alone:");
    console.log(formatCost(host.cost));
  }
  console.log(formatCost(report.cost, costVsHost));
  if (json) {
    writeFileSync(json, `${JSON.stringify(costVsHost ? { ...report, costVsHost } : report, null, 1)}\n`);
    console.log(`  JSON: ${json}`);
  }
  if (report.errors.length) process.exitCode = 1;
}

main(process.argv.slice(2)).catch((e) => {
  console.error(`replay failed: ${(e as Error).stack ?? e}`);
  process.exit(1);
});
