/**
 * Search over a key's knowledge records with the archive's BM25 (kind as `tool`, subject as
 * `target`); superseded records at half their score. Indexes are kept per file by memory and
 * follow the file's appends, a first load in batches of lines per event-loop turn.
 */
import { fileStores } from "../../infra/process-services.js";
import { BudgetCache } from "../../infra/budget-cache.js";
import { quoteUntrusted } from "../inject/quote.js";
import { SearchIndex } from "./search-index.js";
import type { ArchiveRecord } from "./store.js";
import { applyKnowledgeLines, followFile, emptyKnowledgeState, type Followed, type KnowledgeEntry } from "./knowledge-store.js";

export interface KnowledgeHit {
  entry: KnowledgeEntry;
  score: number;
}

const SUPERSEDED_WEIGHT = 0.5;

interface Loaded extends Followed {
  index: SearchIndex;
}

/** Heap of a loaded index: its file's bytes plus this per record (20,000 records: 37.7 / 43.8 MB, within 1%). */
export const INDEXED_BYTES_PER_RECORD = 1_650;
/** Until the budget is set from `cacheMemoryMiB` (engine/cache-budget.ts `knowledgeIndexes`). */
const DEFAULT_INDEX_BUDGET_BYTES = 8 * 2 ** 20;

/** The loaded indexes, kept by memory: each grows with its key's checkpoints; an evicted one is read again at its next search. */
export const knowledgeIndexes = (): BudgetCache<string, Loaded> =>
  (fileStores().knowledgeIndexes ??= new BudgetCache<string, Loaded>("knowledge index", DEFAULT_INDEX_BUDGET_BYTES, (l) => 1_024 + l.size + l.entries.size * INDEXED_BYTES_PER_RECORD));

// by knowledge.jsonl, where the searches run (the archive worker's thread)
declare module "../../infra/process-services.js" {
  interface FileStores { knowledgeIndexes?: BudgetCache<string, Loaded> }
}

/** refreshes in flight, per file: one at a time, so a tail is applied once */
const refreshing = new Map<string, Promise<Loaded | null>>();

export function asRecord(e: KnowledgeEntry, seq: number): ArchiveRecord {
  return { v: 1, id: e.id, seq, role: "assistant", t: e.t, at: e.t, session: e.session, compaction: 0, text: e.text, tool: e.kind, target: e.subject };
}

function refresh(file: string): Promise<Loaded | undefined> {
  const fresh = (): Loaded => ({ size: 0, index: new SearchIndex(), ...emptyKnowledgeState() });
  return followFile(file, knowledgeIndexes(), fresh, (loaded, lines) => {
    const added = applyKnowledgeLines(loaded, lines);
    loaded.index.add(added.map((e) => asRecord(e, loaded.entries.size)));
  });
}

/** The index of `file`, loaded or followed to its current end; null when there is no file. */
export function knowledgeIndex(file: string): Promise<Loaded | null> {
  const run = (refreshing.get(file) ?? Promise.resolve(null)).catch(() => null).then(async () => (await refresh(file)) ?? null);
  const settled = run.finally(() => {
    if (refreshing.get(file) === settled) refreshing.delete(file);
  });
  refreshing.set(file, settled);
  return run;
}

/** Records matching `query`, best first (superseded ones at half score); `minUnits`: minimum score in the index's score units. */
export function searchKnowledge(
  loaded: Pick<Loaded, "index" | "entries"> | null,
  query: string,
  limit: number,
  opts: { skipTerm?: (term: string) => boolean; minUnits?: number } = {},
): KnowledgeHit[] {
  if (!loaded || !query.trim()) return [];
  const out: KnowledgeHit[] = [];
  const minScore = opts.minUnits === undefined ? undefined : opts.minUnits * loaded.index.scoreUnit();
  for (const h of loaded.index.search(query, { limit: Math.min(100, limit * 3), skipTerm: opts.skipTerm, minScore })) {
    const entry = loaded.entries.get(h.record.id);
    if (entry) out.push({ entry, score: entry.supersededBy ? h.score * SUPERSEDED_WEIGHT : h.score });
  }
  return out.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** "- [kind] "text"" (quoted: archived text never starts a line), " (superseded)" when replaced. */
export function knowledgeLine(h: KnowledgeHit, maxChars: number, label?: string): string {
  const e = h.entry;
  const prefix = `- [${e.kind}]${label ? ` ${quoteUntrusted(label, 80)}` : ""} `;
  const suffix = e.supersededBy ? " (superseded)" : "";
  return prefix + quoteUntrusted(e.text, Math.max(20, maxChars - prefix.length - suffix.length - 2)) + suffix;
}

/** Lines of knowledge hits within `maxChars` (whole lines only). */
export function renderKnowledgeLines(hits: readonly KnowledgeHit[], maxChars: number, labelOf?: (h: KnowledgeHit) => string | undefined): string[] {
  const lines: string[] = [];
  let used = 0;
  for (const h of hits) {
    const line = knowledgeLine(h, Math.min(300, maxChars - used), labelOf?.(h));
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines;
}
