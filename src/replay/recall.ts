/**
 * Recall of the archive on replay (docs/archive.md "Replay measurement").
 *
 * For each compaction: the queries are the user requests of the turns after it (at most
 * NEXT_TURNS, up to the next compaction; as the user wrote them); a query counts when it names an identifier (a code-like token: has
 * `_`, `/`, a `.ext`, an inner capital or a digit, 4+ chars) that occurs in the messages
 * this compaction summarized and NOT in the messages it kept: the agent can only get it
 * back from the archive. Relevant = the archived segments of that compaction whose text or
 * target contains such an identifier (a query whose identifier was bounded away counts as a
 * miss). Searched over the archive as it stood then (segments of compactions 1..k), with
 * the same search the tool uses; recall@5 = share of queries with a relevant segment in the
 * top 5; MRR = mean 1/rank of the first relevant one within the top 20 (0 when none).
 * Ground truth comes from the replayed messages, not from the archive's extractor.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { recallCapTokens } from "../agents/archive/archive-session.js";
import { renderRecallBlock } from "../agents/archive/recall-render.js";
import { SearchIndex } from "../agents/archive/search-index.js";
import { type ArchiveRecord, readArchiveFile, segmentId } from "../agents/archive/store.js";
import { segmentsOf } from "../agents/archive/segments.js";
import type { ContextManagerConfig } from "../agents/context-manager-config.js";
import { latencyStats, type LatencyStats } from "./stats.js";

/** turns after a compaction whose requests are queries (fewer when the next compaction comes first) */
export const NEXT_TURNS = 10;
const MRR_DEPTH = 20;

export interface ObservedCompaction {
  /** 1-based, in order (the archive's `compaction` number in a one-session replay) */
  n: number;
  /** index of the first transcript segment whose request the agent had not seen yet */
  nextSegment: number;
  spanText: string;
  keptText: string;
  /** messages summarized */
  messages: number;
  /** archive ids of the span's segments (bookkeeping: which archived records came from it, duplicates included) */
  segmentIds: Set<string>;
}

export interface RecallQuery {
  compaction: number;
  /** turns after the compaction (0 = the first request after it) */
  turn: number;
  query: string;
  identifiers: string[];
  relevant: number;
  /** rank (1-based) of the first relevant hit within the top 20, or null */
  rank: number | null;
  /** same, with relevant = segments of this compaction's own span only (earlier definition) */
  rankSpanOnly: number | null;
  /** tokens of the automatic recall block this query would get */
  blockTokens: number;
  /** the automatic block holds a relevant segment */
  blockRelevant: boolean;
}

export interface RecallFigures {
  queries: number;
  at5: number | null;
  mrr: number | null;
}

export interface RecallReport {
  definition: string;
  queries: number;
  at5: number | null;
  mrr: number | null;
  /** compactions with at least one counted query */
  compactions: number;
  segmentsArchived: number;
  archiveBytes: number;
  /** archive file bytes per 1,000 messages summarized (span messages) */
  bytesPer1000Messages: number | null;
  queryMs: LatencyStats;
  autoBlock: { capTokens: number; minScore: number; nonEmpty: number; withRelevant: number; tokens: LatencyStats };
  /** the same measure under the other definitions (docs/archive.md) */
  variants: { spanOnly: RecallFigures; allTurns: RecallFigures; allTurnsSpanOnly: RecallFigures };
  detail: RecallQuery[];
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

function figures(detail: readonly RecallQuery[], rankOf: (d: RecallQuery) => number | null): RecallFigures {
  const n = detail.length;
  return {
    queries: n,
    at5: n ? round3(detail.filter((d) => (rankOf(d) ?? Infinity) <= 5).length / n) : null,
    mrr: n ? round3(detail.reduce((a, d) => a + (rankOf(d) ? 1 / rankOf(d)! : 0), 0) / n) : null,
  };
}

function messageText(m: AgentMessage): string {
  const parts: string[] = [];
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") parts.push(c);
  else if (Array.isArray(c)) {
    for (const b of c as Array<Record<string, unknown>>) {
      if (b?.type === "text" && typeof b.text === "string") parts.push(b.text);
      else if (b?.type === "toolCall") parts.push(JSON.stringify(b.arguments ?? {}));
    }
  }
  const bash = m as { command?: unknown; output?: unknown };
  if (typeof bash.command === "string") parts.push(bash.command);
  if (typeof bash.output === "string") parts.push(bash.output);
  return parts.join("\n");
}

/** Observes session_before_compact: what was summarized, what was kept (ground truth). */
export function recallObserver(nextSegment: () => number, out: ObservedCompaction[]): ExtensionFactory {
  return (pi) => {
    pi.on("session_before_compact", async (event) => {
      const p = event.preparation;
      const span = [...p.messagesToSummarize, ...p.turnPrefixMessages].map(messageText).join("\n");
      let kept = "";
      let keeping = false;
      for (const e of event.branchEntries) {
        if (e.id === p.firstKeptEntryId) keeping = true;
        if (keeping && e.type === "message") kept += `${messageText(e.message)}\n`;
      }
      const spanMessages = [...p.messagesToSummarize, ...p.turnPrefixMessages];
      const segmentIds = new Set(segmentsOf(spanMessages).map((d) => segmentId(d)));
      out.push({ n: out.length + 1, nextSegment: nextSegment(), spanText: span, keptText: kept, messages: spanMessages.length, segmentIds });
      return undefined;
    });
  };
}

const IDENT = /[A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_]/g;

/** Code-like tokens of a request: syntax only (no word lists). */
export function identifiersOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(IDENT)) {
    const t = m[0];
    if (t.length < 4 || t.length > 120) continue;
    const codeLike = /[_/]/.test(t) || /\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(t) || /[a-z][A-Z]/.test(t) || (/[0-9]/.test(t) && /[A-Za-z]/.test(t));
    if (codeLike && !/^https?:/.test(t)) out.add(t);
  }
  return [...out];
}

export async function measureRecall(
  archiveFile: string,
  observed: readonly ObservedCompaction[],
  requests: readonly string[],
  config: ContextManagerConfig,
  contextWindow: number,
): Promise<RecallReport> {
  const summarizedMessages = observed.reduce((a, c) => a + c.messages, 0);
  const { records } = await readArchiveFile(archiveFile);
  const byId = new Map<string, ArchiveRecord>(records.map((r) => [r.id, r]));
  const index = new SearchIndex();
  const detail: RecallQuery[] = [];
  const times: number[] = [];
  const cap = recallCapTokens(config, contextWindow);
  const blockTokens: number[] = [];
  let archiveBytes = 0;
  try {
    const { statSync } = await import("node:fs");
    archiveBytes = statSync(archiveFile).size;
  } catch {
    // no archive: zero bytes
  }
  for (const [k, c] of observed.entries()) {
    // the archive as it stood after this compaction; its own records (a segment archived
    // earlier and deduplicated now still belongs to this span)
    const own: ArchiveRecord[] = [];
    for (const id of c.segmentIds) {
      const r = byId.get(id);
      if (r) own.push(r);
    }
    index.add(own);
    const ownIds = new Set(own.map((r) => r.id));
    const until = Math.min(requests.length, observed[k + 1]?.nextSegment ?? Infinity);
    for (let s = c.nextSegment; s < until; s++) {
      const query = requests[s]!;
      const ids = identifiersOf(query).filter((id) => c.spanText.includes(id) && !c.keptText.includes(id));
      if (ids.length === 0) continue;
      const relevant = new Set<string>();
      for (const r of index.values()) if (ids.some((id) => r.text.includes(id) || (r.target ?? "").includes(id))) relevant.add(r.id);
      const t0 = performance.now();
      const hits = index.search(query, { limit: MRR_DEPTH });
      times.push(performance.now() - t0);
      const at = hits.findIndex((h) => relevant.has(h.record.id));
      const atSpan = hits.findIndex((h) => relevant.has(h.record.id) && ownIds.has(h.record.id));
      const auto = renderRecallBlock(index.search(query, { limit: 8, minScore: config.recallMinScore }), cap);
      detail.push({
        compaction: c.n,
        turn: s - c.nextSegment,
        query: query.slice(0, 160),
        identifiers: ids.slice(0, 8),
        relevant: relevant.size,
        rank: at < 0 ? null : at + 1,
        rankSpanOnly: atSpan < 0 ? null : atSpan + 1,
        blockTokens: auto.tokens,
        blockRelevant: auto.ids.some((id) => relevant.has(id)),
      });
    }
  }
  const all = detail;
  const main = detail.filter((d) => d.turn < NEXT_TURNS);
  for (const d of main) blockTokens.push(d.blockTokens);
  const primary = figures(main, (d) => d.rank);
  return {
    definition:
      "queries: user requests of the turns after each compaction (at most 10, up to the next compaction) that name a code-like identifier present in the summarized messages and absent from the kept ones; relevant: segments of the archive as it stood after that compaction containing it; recall@5: share with a relevant segment in the top 5; MRR: mean 1/rank of the first relevant within the top 20",
    ...primary,
    compactions: new Set(main.map((d) => d.compaction)).size,
    segmentsArchived: records.length,
    archiveBytes,
    bytesPer1000Messages: summarizedMessages > 0 ? Math.round((archiveBytes / summarizedMessages) * 1000) : null,
    queryMs: latencyStats(times),
    autoBlock: {
      capTokens: cap,
      minScore: config.recallMinScore,
      nonEmpty: blockTokens.filter((x) => x > 0).length,
      withRelevant: main.filter((d) => d.blockRelevant).length,
      tokens: latencyStats(blockTokens),
    },
    variants: {
      spanOnly: figures(main, (d) => d.rankSpanOnly),
      allTurns: figures(all, (d) => d.rank),
      allTurnsSpanOnly: figures(all, (d) => d.rankSpanOnly),
    },
    detail: all,
  };
}
