/**
 * `npx tsx bench/tables.ts bench/results.json [replay.json ...]`: prints the
 * markdown tables of docs/benchmarks.md from one bench run and replay reports.
 */
import { readFileSync } from "node:fs";
import type { ReplayReport } from "../src/replay/replayer.js";

const f = (v: number | null | undefined, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(d));
const pct = (r: { recall: number; found: number; expected: number }) => `${(r.recall * 100).toFixed(0)}% (${r.found}/${r.expected})`;

const [benchFile, ...replays] = process.argv.slice(2);
if (benchFile) {
  const b = JSON.parse(readFileSync(benchFile, "utf8"));
  console.log(`Machine: ${b.machine.cpu}, ${b.machine.cores} cores, Node ${b.machine.node}, ${b.machine.platform}, ${b.date}\n`);
  console.log("| N messages | onContext median | p99 | capture only (median) | state flush only (median / p99) | fsyncs per call | pi structuredClone median |");
  console.log("|---:|---:|---:|---:|---:|---:|---:|");
  for (const [i, h] of b.handler.entries()) {
    const c = b.structuredClone[i];
    const syncs = h.fsOpsPerCall?.["fh.sync (fsync)"]?.calls ?? 0;
    console.log(`| ${h.messages} | ${f(h.onContext.median)} ms | ${f(h.onContext.p99)} ms | ${f(h.captureOnly.median)} ms | ${f(h.stateFlushOnly.median)} / ${f(h.stateFlushOnly.p99)} ms | ${syncs} | ${f(c.structuredClone.median, 2)} ms |`);
  }
  const cp = b.checkpoint;
  console.log("\n| checkpoint operation | median | p99 | n |");
  console.log("|---|---:|---:|---:|");
  console.log(`| build only (buildCheckpointDraft) | ${f(cp.buildOnly.median)} ms | ${f(cp.buildOnly.p99)} ms | ${cp.buildOnly.n} |`);
  console.log(`| build + write (writeCheckpoint, fsync, pointer, retention) | ${f(cp.buildAndWrite.median)} ms | ${f(cp.buildAndWrite.p99)} ms | ${cp.buildAndWrite.n} |`);
  console.log(`| floor: one open+write+fsync+close of the same bytes | ${f(cp.fsyncBaseline.median)} ms | ${f(cp.fsyncBaseline.p99)} ms | ${cp.fsyncBaseline.n} |`);
  console.log(`| YAML parse (parseCheckpoint, ${cp.checkpointTokens} tok) | ${f(cp.yamlParse.median)} ms | ${f(cp.yamlParse.p99)} ms | ${cp.yamlParse.n} |`);
  console.log(`| restore render (renderCheckpointRestore → ${cp.restoreTokens} tok) | ${f(cp.restoreRender.median)} ms | ${f(cp.restoreRender.p99)} ms | ${cp.restoreRender.n} |`);
  console.log("\nfs operations per checkpoint write (calls, ms):");
  console.log(Object.entries(cp.fsOpsPerWrite as Record<string, { calls: number; ms: number }>).map(([k, v]) => `${k} ${v.calls}× ${v.ms} ms`).join("; "));
}
if (replays.length) {
  const rs = replays.map((p) => JSON.parse(readFileSync(p, "utf8")) as ReplayReport);
  console.log("\n| transcript | msgs | window | wall s | context calls | handler median | p99 | max msgs in ctx | compactions (natural + final) | checkpoints auto / compaction | cp tokens (min–max) | auto write median / p99 | compaction write median / p99 | restore blocks (delivered) | restore tokens median / max | last user in restore |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rs) {
    const nat = r.compactions.filter((c) => !c.final).length;
    const auto = r.checkpoints.filter((c) => c.trigger === "auto-80pct").length;
    const tok = r.checkpoints.map((c) => c.tokens);
    const inR = r.compactions.filter((c) => c.lastUserInRestore !== null);
    console.log(`| ${r.transcript} | ${r.recorded.messages} | ${r.contextWindow} | ${(r.durationMs / 1000).toFixed(1)} | ${r.handler.n + r.handlerWithCheckpoint.n} | ${f(r.handler.median)} ms | ${f(r.handler.p99)} ms | ${r.replay.maxMessagesInContext} | ${nat} + ${r.compactions.length - nat} | ${auto} / ${r.checkpoints.length - auto} | ${tok.length ? `${Math.min(...tok)}–${Math.max(...tok)}` : "–"} | ${f(r.checkpointWrite.auto.median, 1)} / ${f(r.checkpointWrite.auto.p99, 1)} ms | ${f(r.checkpointWrite.compaction.median, 1)} / ${f(r.checkpointWrite.compaction.p99, 1)} ms | ${r.restore.blocks} (${r.restore.delivered}) | ${r.restore.tokens.median} / ${r.restore.tokens.max} | ${inR.filter((c) => c.lastUserInRestore).length}/${inR.length} |`);
  }
  console.log("\n| transcript | modified files | tools used | tool failures | per-compaction modified-file recall | synthetic / skipped replies | errors |");
  console.log("|---|---:|---:|---:|---|---:|---:|");
  for (const r of rs) {
    const per = r.compactions.map((c) => (c.fidelity ? f(c.fidelity.modifiedFiles.recall, 2) : "–")).join(", ");
    const fi = r.fidelity;
    console.log(`| ${r.transcript} | ${fi ? pct(fi.modifiedFiles) : "–"} | ${fi ? pct(fi.toolsUsed) : "–"} | ${fi ? pct(fi.toolFailures) : "–"} | ${per} | ${r.replay.syntheticReplies} / ${r.replay.skippedReplies} | ${r.errors.length} |`);
  }
  console.log("\nhandler cost by messages in context (median / p99, calls):");
  for (const r of rs) console.log(`- ${r.transcript}: ${r.handler.byMessages.map((b) => `${b.messages}: ${f(b.median, 2)} / ${f(b.p99, 2)} ms (${b.n})`).join("; ")}`);
}
