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
import { RECALL_QUERY_REQUESTS, recallCapTokens, recallQueryOf, visibleText } from "../agents/archive/recall-query.js";
import { renderRecalledContext } from "../agents/archive/recall-render.js";
import { SearchIndex } from "../agents/archive/archive.js";
import { type ArchiveRecord, readArchiveFile, segmentId } from "../agents/archive/store.js";
import { type ExpandStashed, segmentsOf, stashedTextResolver } from "../agents/archive/segments.js";
import type { ContextManagerConfig } from "../agents/config/context-manager-config.js";
import { latencyStats, type LatencyStats } from "./stats.js";

/** turns after a compaction whose requests are queries (fewer when the next compaction comes first) */
export const NEXT_TURNS = 10;
const MRR_DEPTH = 20;
/** recallMinScore values the automatic block is also measured at */
const MIN_SCORE_SWEEP = [0, 1, 2, 3, 4, 5, 6, 8];

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
  /** index of the request in the transcript's segments */
  segment: number;
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
  /**
   * The automatic block as the live path would build it for every request of the turns
   * after a compaction (at most NEXT_TURNS): query = the last RECALL_QUERY_REQUESTS
   * requests, terms visible in the context left out: the context observed at the request's
   * first LLM call (recallObserver), else approximated by the kept messages plus the
   * requests since the compaction (fewer visible terms: an upper bound on `injected`).
   */
  autoBlock: {
    capTokens: number;
    minScore: number;
    /** requests after compactions considered */
    requests: number;
    /** of them, with the context observed at their first LLM call (others approximated) */
    observedContexts: number;
    /** of them, requests that got a block */
    injected: number;
    /** counted queries (above) that got a block */
    nonEmpty: number;
    /** counted queries whose block holds a relevant segment */
    withRelevant: number;
    /** tokens of the injected blocks */
    tokens: LatencyStats;
    /** the same at other thresholds: requests injected, counted queries injected, of them with a relevant segment */
    byMinScore: Record<number, { injected: number; onQueries: number; withRelevant: number }>;
  };
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

/** The message's text; a stashed tool result (offload on) as its payload, as the archive holds it. */
export function messageText(m: AgentMessage, expand?: ExpandStashed): string {
  const parts: string[] = [];
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") parts.push(c);
  else if (Array.isArray(c)) {
    for (const b of c as Array<Record<string, unknown>>) {
      if (b?.type === "text" && typeof b.text === "string") parts.push((m.role === "toolResult" && expand?.(b.text)) || b.text);
      else if (b?.type === "toolCall") parts.push(JSON.stringify(b.arguments ?? {}));
    }
  }
  const bash = m as { command?: unknown; output?: unknown };
  if (typeof bash.command === "string") parts.push(bash.command);
  if (typeof bash.output === "string") parts.push(bash.output);
  return parts.join("\n");
}

/** What the automatic recall would have started from at a request: its query and the visible context. */
export interface ObservedContext {
  query: string;
  /** lower-cased text of the context minus the query's requests (recall-query.ts visibleText) */
  visible: string;
}

/**
 * Observes session_before_compact: what was summarized, what was kept (ground truth);
 * and, at the first LLM call of each of the NEXT_TURNS requests after a compaction, the
 * context as the automatic recall would see it.
 */
export function recallObserver(
  nextSegment: () => number,
  out: ObservedCompaction[],
  contexts?: Map<number, ObservedContext>,
  /** the replay's state dir: stashed results (offload on) read as the archive reads them */
  stateDir?: string,
): ExtensionFactory {
  const expand = stateDir ? stashedTextResolver(stateDir) : undefined;
  return (pi) => {
    if (contexts) {
      pi.on("context", async (event) => {
        const last = out.at(-1);
        const s = nextSegment() - 1;
        if (!last || s < last.nextSegment || s >= last.nextSegment + NEXT_TURNS || contexts.has(s)) return undefined;
        const { query, requestAt } = recallQueryOf(event.messages);
        contexts.set(s, { query, visible: visibleText(event.messages, requestAt) });
        return undefined;
      });
    }
    pi.on("session_before_compact", async (event) => {
      // only references are taken here: the texts are built when read (after the replay), so
      // this observer adds nothing to the compaction it observes (compactionMs)
      const p = event.preparation;
      const spanMessages = [...p.messagesToSummarize, ...p.turnPrefixMessages];
      const entries = [...event.branchEntries];
      const firstKept = p.firstKeptEntryId;
      let texts: { span: string; kept: string; segmentIds: Set<string> } | null = null;
      const built = () => {
        if (texts) return texts;
        let kept = "";
        let keeping = false;
        for (const e of entries) {
          if (e.id === firstKept) keeping = true;
          if (keeping && e.type === "message") kept += `${messageText(e.message, expand)}\n`;
        }
        const span = spanMessages.map((m) => messageText(m, expand)).join("\n");
        texts = { span, kept, segmentIds: new Set(segmentsOf(spanMessages, expand).map((d) => segmentId(d))) };
        return texts;
      };
      out.push({
        n: out.length + 1,
        nextSegment: nextSegment(),
        messages: spanMessages.length,
        get spanText() {
          return built().span;
        },
        get keptText() {
          return built().kept;
        },
        get segmentIds() {
          return built().segmentIds;
        },
      });
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
  contexts?: ReadonlyMap<number, ObservedContext>,
): Promise<RecallReport> {
  const summarizedMessages = observed.reduce((a, c) => a + c.messages, 0);
  const { records } = await readArchiveFile(archiveFile);
  const byId = new Map<string, ArchiveRecord>(records.map((r) => [r.id, r]));
  const index = new SearchIndex();
  const detail: RecallQuery[] = [];
  const times: number[] = [];
  const cap = recallCapTokens(config, contextWindow);
  const blockTokens: number[] = [];
  let autoRequests = 0;
  const sweep: Record<number, { injected: number; onQueries: number; withRelevant: number }> = {};
  let observedContexts = 0;
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
      let auto: { tokens: number; ids: string[] } | null = null;
      if (s - c.nextSegment < NEXT_TURNS) {
        // the context the live path would see when observed, else approximated from the kept
        // messages and the requests since the compaction
        const from = Math.max(0, s - RECALL_QUERY_REQUESTS + 1);
        const seen = contexts?.get(s);
        if (seen) observedContexts++;
        const autoQuery = seen?.query ?? requests.slice(from, s + 1).map((r) => r.slice(0, 2000)).reverse().join("\n");
        const visible = seen?.visible ?? `${c.keptText}\n${requests.slice(c.nextSegment, Math.max(c.nextSegment, from)).join("\n")}`.toLowerCase();
        const all = index.search(autoQuery, { limit: 8, skipTerm: (t) => visible.includes(t) });
        const unit = index.scoreUnit();
        auto = renderRecalledContext([], all.filter((h) => h.score >= config.recallMinScore * unit), cap);
        for (const t of MIN_SCORE_SWEEP) {
          const b = renderRecalledContext([], all.filter((h) => h.score >= t * unit), cap);
          const row = (sweep[t] ??= { injected: 0, onQueries: 0, withRelevant: 0 });
          if (b.tokens > 0) row.injected++;
          if (b.tokens > 0 && ids.length > 0) {
            row.onQueries++;
            const rel = (r: ArchiveRecord) => ids.some((id) => r.text.includes(id) || (r.target ?? "").includes(id));
            if (b.ids.some((id) => { const r = byId.get(id); return r ? rel(r) : false; })) row.withRelevant++;
          }
        }
        autoRequests++;
        if (auto.tokens > 0) blockTokens.push(auto.tokens);
      }
      if (ids.length === 0) continue;
      const relevant = new Set<string>();
      for (const r of index.values()) if (ids.some((id) => r.text.includes(id) || (r.target ?? "").includes(id))) relevant.add(r.id);
      const t0 = performance.now();
      const hits = index.search(query, { limit: MRR_DEPTH });
      times.push(performance.now() - t0);
      const at = hits.findIndex((h) => relevant.has(h.record.id));
      const atSpan = hits.findIndex((h) => relevant.has(h.record.id) && ownIds.has(h.record.id));
      detail.push({
        compaction: c.n,
        turn: s - c.nextSegment,
        segment: s,
        query: query.slice(0, 160),
        identifiers: ids.slice(0, 8),
        relevant: relevant.size,
        rank: at < 0 ? null : at + 1,
        rankSpanOnly: atSpan < 0 ? null : atSpan + 1,
        blockTokens: auto?.tokens ?? 0,
        blockRelevant: auto?.ids.some((id) => relevant.has(id)) ?? false,
      });
    }
  }
  const all = detail;
  const main = detail.filter((d) => d.turn < NEXT_TURNS);
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
      requests: autoRequests,
      observedContexts,
      injected: blockTokens.length,
      nonEmpty: main.filter((d) => d.blockTokens > 0).length,
      withRelevant: main.filter((d) => d.blockRelevant).length,
      tokens: latencyStats(blockTokens),
      byMinScore: sweep,
    },
    variants: {
      spanOnly: figures(main, (d) => d.rankSpanOnly),
      allTurns: figures(all, (d) => d.rank),
      allTurnsSpanOnly: figures(all, (d) => d.rankSpanOnly),
    },
    detail: all,
  };
}
