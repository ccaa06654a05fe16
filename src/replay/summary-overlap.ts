/**
 * `npx tsx src/replay/summary-overlap.ts <transcript.json> <llm-summaries.json> [--json]`
 * How much of what pi's LLM summary names the restore block names too, at the same point of
 * the same session: the code identifiers and paths the summary writes in backticks (its own
 * markup, so the ground truth is the LLM's text, not this package's extractor) that occur in
 * the block rendered after the same number of messages (src/replay/block-at.ts). A path
 * counts when the block names it or its file name (the block folds paths under a root).
 * The checkpoint compaction summary (issue 25) is measured the same way, rendered at the LLM
 * summary's own token count (`summaryTokensApprox`; the configured default when absent).
 * `--peer <pi extension>` (e.g. pi-vcc's package dir) measures a peer's summary beside ours:
 * its own `session_before_compact` handler run on the same messages (peer-extension.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blocksAt } from "./block-at.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../agents/config/context-manager-config.js";
import { renderCompactionSummary } from "../agents/inject/compaction-summary.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";
import { loadPeerExtension, type PeerExtension, peerSummaryOf } from "./peer-extension.js";

export interface SummaryOverlap {
  messagesBefore: number;
  blockTokens: number;
  summaryTokens: number;
  named: number;
  inBlock: number;
  missing: string[];
  /** the checkpoint compaction summary at the LLM summary's token count */
  compactionSummary: { in: number; tokens: number; maxTokens: number; missing: string[] };
  /** the peer's summary of the same messages (null: no peer, or it declined to summarize) */
  peer?: { in: number; tokens: number; missing: string[] } | null;
}

function missingIn(text: string, ids: readonly string[]): string[] {
  return ids.filter((x) => !text.includes(x) && !text.includes(x.split("/").pop()!));
}

/** Identifier-like words inside the summary's backtick spans (4+ chars, some letters). */
export function summaryIdentifiers(summary: string): string[] {
  const ids = new Set<string>();
  for (const m of summary.matchAll(/`([^`\n]{3,80})`/g)) {
    for (const w of m[1]!.split(/[\s(),;:=<>{}[\]"']+/)) {
      const word = w.replace(/\.$/, "");
      if (word.length >= 4 && /[A-Za-z_]{3,}/.test(word)) ids.add(word);
    }
  }
  return [...ids];
}

export async function summaryOverlap(
  messages: unknown[],
  compactions: Array<{ messagesBefore: number; summary: string; summaryTokensApprox?: number }>,
  peer?: PeerExtension,
): Promise<SummaryOverlap[]> {
  const dir = mkdtempSync(join(tmpdir(), "cm-overlap-"));
  try {
    const blocks = await blocksAt(messages as never, compactions.map((c) => c.messagesBefore), dir);
    const peerTexts = peer ? await Promise.all(compactions.map((c) => peerSummaryOf(peer, messages.slice(0, c.messagesBefore) as never))) : [];
    return compactions.map((c, i) => {
      const text = blocks[i]!.text;
      const ids = summaryIdentifiers(c.summary);
      const missing = missingIn(text, ids);
      const maxTokens = c.summaryTokensApprox ?? DEFAULT_CONTEXT_MANAGER_CONFIG.compactionSummaryMaxTokens;
      const summary = renderCompactionSummary(blocks[i]!.checkpoint, { maxTokens });
      const sMissing = missingIn(summary.text, ids);
      return {
        messagesBefore: c.messagesBefore, blockTokens: blocks[i]!.tokens, summaryTokens: c.summaryTokensApprox ?? 0,
        named: ids.length, inBlock: ids.length - missing.length, missing,
        compactionSummary: { in: ids.length - sMissing.length, tokens: summary.tokens, maxTokens, missing: sMissing },
        ...(peer ? { peer: peerOverlap(peerTexts[i] ?? null, ids) } : {}),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function peerOverlap(text: string | null, ids: readonly string[]): SummaryOverlap["peer"] {
  if (text === null) return null;
  const missing = missingIn(text, ids);
  return { in: ids.length - missing.length, tokens: estimateTextTokens(text), missing };
}

async function main(argv: string[]) {
  const json = argv.includes("--json");
  const p = argv.indexOf("--peer");
  const peerPath = p >= 0 ? argv[p + 1] : undefined;
  const [transcript, summaries] = argv.filter((a, i) => a !== "--json" && (p < 0 || (i !== p && i !== p + 1)));
  if (!transcript || !summaries || (p >= 0 && !peerPath)) {
    console.error("usage: npx tsx src/replay/summary-overlap.ts <transcript.json> <llm-summaries.json> [--json] [--peer <pi extension path>]");
    process.exit(2);
  }
  const peer = peerPath ? await loadPeerExtension(peerPath) : undefined;
  const messages = JSON.parse(readFileSync(transcript, "utf8")) as unknown[];
  const { compactions } = JSON.parse(readFileSync(summaries, "utf8")) as { compactions: Array<{ messagesBefore: number; summary: string; summaryTokensApprox?: number }> };
  const results = await summaryOverlap(messages, compactions, peer);
  if (json) {
    const points = results.map((r) => ({
      messagesBefore: r.messagesBefore,
      named: r.named,
      llmSummaryTokens: r.summaryTokens,
      block: { in: r.inBlock, tokens: r.blockTokens, missing: r.missing },
      compactionSummary: r.compactionSummary,
      ...(r.peer !== undefined ? { peer: r.peer } : {}),
    }));
    console.log(JSON.stringify(points, null, 2));
    return;
  }
  for (const r of results) {
    console.log(`after ${r.messagesBefore} messages: ${r.inBlock}/${r.named} identifiers the LLM summary names are in the block (block ${r.blockTokens} tokens, summary ~${r.summaryTokens})`);
    console.log(`  missing: ${r.missing.join(" ") || "-"}`);
    const c = r.compactionSummary;
    console.log(`  compaction summary: ${c.in}/${r.named} (${c.tokens} tokens of ${c.maxTokens}); missing: ${c.missing.join(" ") || "-"}`);
    if (r.peer === null) console.log("  peer: declined to summarize");
    else if (r.peer) console.log(`  peer summary: ${r.peer.in}/${r.named} (${r.peer.tokens} tokens); missing: ${r.peer.missing.join(" ") || "-"}`);
  }
}

if (process.argv[1] && /summary-overlap\.ts$/.test(process.argv[1])) void main(process.argv.slice(2));
