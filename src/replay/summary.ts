/** The short human summary of a replay, printed on stdout. */
import type { ReplayReport } from "./replayer.js";
import type { Recall } from "./fidelity.js";
import type { FidelityV2 } from "./fidelity-v2.js";

const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(3)} ms` : "n/a");
const pct = (r: Recall) => `${(r.recall * 100).toFixed(0)}% (${r.found}/${r.expected})`;

export function formatSummary(r: ReplayReport): string {
  const lines: string[] = [];
  lines.push(`Replay of ${r.transcript}: ${r.recorded.messages} messages, ${r.recorded.segments} inbound turns, window ${r.contextWindow} (reserve ${r.reserveTokens}, keepRecent ${r.keepRecentTokens}), ${(r.durationMs / 1000).toFixed(1)} s`);
  lines.push(`  requests: ${r.replay.chatRequests} chat, ${r.replay.summarizerRequests} summarizer; tool results delivered ${r.replay.toolResultsDelivered}/${r.recorded.toolResults}; synthetic replies ${r.replay.syntheticReplies}, skipped replies ${r.replay.skippedReplies}, missing results ${r.replay.missingToolResults}; max messages in context ${r.replay.maxMessagesInContext}`);
  lines.push(`  context handler (no checkpoint write): ${r.handler.n} calls, median ${ms(r.handler.median)}, p99 ${ms(r.handler.p99)}, max ${ms(r.handler.max)}`);
  for (const b of r.handler.byMessages) lines.push(`    ${b.messages.padStart(9)} msgs: ${String(b.n).padStart(5)} calls, median ${ms(b.median)}, p99 ${ms(b.p99)}`);
  const byTrigger = new Map<string, number[]>();
  for (const c of r.checkpoints) byTrigger.set(c.trigger, [...(byTrigger.get(c.trigger) ?? []), c.tokens]);
  lines.push(`  checkpoints: ${r.checkpoints.length} (${[...byTrigger].map(([t, v]) => `${t} ${v.length}, ${Math.min(...v)}-${Math.max(...v)} tok`).join("; ") || "none"})`);
  lines.push(`  checkpoint write: auto-80pct median ${ms(r.checkpointWrite.auto.median)} p99 ${ms(r.checkpointWrite.auto.p99)} (n=${r.checkpointWrite.auto.n}); compaction median ${ms(r.checkpointWrite.compaction.median)} p99 ${ms(r.checkpointWrite.compaction.p99)} (n=${r.checkpointWrite.compaction.n})`);
  const natural = r.compactions.filter((c) => !c.final);
  lines.push(`  compactions: ${natural.length} natural + ${r.compactions.length - natural.length} final /compact; restore blocks ${r.restore.blocks} (delivered on a next turn ${r.restore.delivered}), tokens median ${r.restore.tokens.median} max ${r.restore.tokens.max}`);
  const cms = [...r.compactions.map((c) => c.compactionMs)].sort((a, b) => a - b);
  const p99 = cms.length ? cms[Math.min(cms.length - 1, Math.ceil(cms.length * 0.99) - 1)]! : 0;
  const summaryTokens = r.compactions.map((c) => Math.ceil(c.summaryText.length / 4));
  lines.push(
    `  compaction mode ${r.compactionMode}: compaction ms median ${ms(cms[Math.floor(cms.length / 2)] ?? 0)} p99 ${ms(p99)} max ${ms(cms.at(-1) ?? 0)}; summary tokens max ${Math.max(0, ...summaryTokens)}; summarizer requests ${r.replay.summarizerRequests}, input tokens ${r.replay.summarizerInputTokens.toLocaleString("en-US")}; agent + summarizer input tokens ${r.inputTokensWithSummarizer.toLocaleString("en-US")}`,
  );
  const inRestore = r.compactions.filter((c) => c.lastUserInRestore !== null);
  lines.push(`  last user request in restore block: ${inRestore.filter((c) => c.lastUserInRestore).length}/${inRestore.length}`);
  if (r.fidelity) {
    lines.push(`  fidelity (final checkpoint): modified files ${pct(r.fidelity.modifiedFiles)}, tools ${pct(r.fidelity.toolsUsed)}, tool failures ${pct(r.fidelity.toolFailures)}`);
    const missing = [...r.fidelity.modifiedFiles.missing, ...r.fidelity.toolsUsed.missing, ...r.fidelity.toolFailures.missing];
    if (missing.length) lines.push(`    missing: ${missing.slice(0, 8).join(" | ")}`);
  }
  const v2 = r.compactions.flatMap((c) => (c.fidelityV2 ? [c.fidelityV2] : []));
  if (v2.length) {
    const a = aggregateV2(v2);
    lines.push(`  fidelity v2 (restore text, ${v2.length} blocks): modified-file recall min ${a.fileRecallMin} (all ${a.fileFound}/${a.fileExpected}); listed failures unresolved ${a.failUnresolved}/${a.failListed}; stale next actions ${a.stale}; last-3 requests in ${a.last3Blocks}/${v2.length} blocks; tokens max ${a.tokensMax}; overflow rejections ${r.replay.overflowRejections}`);
  }
  const o = r.offload;
  lines.push(
    `  input tokens over the session: ${r.inputTokensTotal.toLocaleString("en-US")}; compactions ${r.compactionCount}; offload ${o.enabled ? "on" : "off"}: ${o.stashed} stashed (${o.bytes.toLocaleString("en-US")} bytes, ${o.originalTokens.toLocaleString("en-US")} tok -> previews ${o.previewTokens.toLocaleString("en-US")} tok), fetch tool ${o.fetchToolTokensPerRequest} tok/request (${o.fetchToolTokensTotal.toLocaleString("en-US")} total)`,
  );
  lines.push(`  fetch-need estimate: ${o.fetchNeed.needed}/${o.fetchNeed.stashed} stashed results later quoted from their omitted part (${(o.fetchNeed.rate * 100).toFixed(1)}%); aged call arguments: ${o.agedCalls} calls (${o.agedCallOriginalTokens.toLocaleString("en-US")} tok -> ${o.agedCallTokens.toLocaleString("en-US")} tok), later quoted ${o.fetchNeed.agedArgs.needed}/${o.fetchNeed.agedArgs.stashed}`);
  const rc = r.recall;
  const fig = (f: { queries: number; at5: number | null; mrr: number | null }) => `${f.queries} queries, recall@5 ${f.at5 ?? "n/a"}, MRR ${f.mrr ?? "n/a"}`;
  if (rc) {
    lines.push(
      `  archive recall: ${rc.queries} queries over ${rc.compactions} compactions, recall@5 ${rc.at5 ?? "n/a"}, MRR ${rc.mrr ?? "n/a"}; query median ${ms(rc.queryMs.median)} p99 ${ms(rc.queryMs.p99)}; ${rc.segmentsArchived} segments, ${rc.bytesPer1000Messages ?? "n/a"} bytes per 1,000 messages; auto block (cap ${rc.autoBlock.capTokens}, min score ${rc.autoBlock.minScore}): injected on ${rc.autoBlock.injected}/${rc.autoBlock.requests} requests after compactions, on ${rc.autoBlock.nonEmpty}/${rc.queries} counted queries (${rc.autoBlock.withRelevant} with a relevant segment), tokens median ${rc.autoBlock.tokens.median} max ${rc.autoBlock.tokens.max}`,
      `  recall variants: span-only relevance ${fig(rc.variants.spanOnly)}; all turns to the next compaction ${fig(rc.variants.allTurns)}; both ${fig(rc.variants.allTurnsSpanOnly)}`,
    );
  }
  const k = r.knowledge;
  if (k) {
    lines.push(
      `  knowledge: ${k.records} records (${Object.entries(k.byKind).map(([kind, n]) => `${kind} ${n}`).join(", ")}), ${k.superseded} superseded; on the ${k.queries} recall queries, top 5: knowledge ${k.at5Knowledge ?? "n/a"}, detail ${k.at5Detail ?? "n/a"}, either ${k.at5Either ?? "n/a"} (knowledge as it stood at each request)${k.block ? `; recall block with both sections: max ${k.block.maxTokens} of ${k.block.capTokens} tokens over ${k.block.blocks} queries, ${k.block.overCap} over the cap` : ""}`,
    );
  }
  const tr = r.trim;
  if (tr?.enabled) {
    lines.push(
      `  smart trim: ${tr.requests} requests trimmed, ${tr.messages} messages (${tr.tokens.toLocaleString("en-US")} tok); orphans ${tr.orphans}; prefix stable ${tr.prefixStable ?? "n/a"} of ${tr.prefixPairs} request pairs; recall@5 on trimmed content ${tr.recallAt5 ?? "n/a"} (${tr.recallQueries} queries)`,
    );
  }
  if (r.warnings.length) lines.push(`  warnings: ${r.warnings.length} (first: ${r.warnings[0]})`);
  if (r.errors.length) lines.push(`  ERRORS: ${r.errors.join(" | ")}`);
  return lines.join("\n");
}

export interface V2Aggregate {
  fileRecallMin: string;
  fileFound: number;
  fileExpected: number;
  failListed: number;
  failUnresolved: number;
  stale: number;
  last3Blocks: number;
  tokensMax: number;
}

export function aggregateV2(v2: readonly FidelityV2[]): V2Aggregate {
  return {
    fileRecallMin: `${(Math.min(...v2.map((f) => f.modifiedFiles.recall)) * 100).toFixed(0)}%`,
    fileFound: v2.reduce((n, f) => n + f.modifiedFiles.found, 0),
    fileExpected: v2.reduce((n, f) => n + f.modifiedFiles.expected, 0),
    failListed: v2.reduce((n, f) => n + f.failures.listed, 0),
    failUnresolved: v2.reduce((n, f) => n + f.failures.unresolved, 0),
    stale: v2.filter((f) => f.nextAction.stale).length,
    last3Blocks: v2.filter((f) => f.lastRequests.found === f.lastRequests.expected).length,
    tokensMax: Math.max(...v2.map((f) => f.tokens)),
  };
}
