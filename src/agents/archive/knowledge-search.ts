/**
 * Search over a key's knowledge records: the archive's BM25 (SearchIndex: same tokenizer,
 * identifiers first, plain BM25) with the kind as `tool` and the subject as `target`.
 * Superseded records stay searchable at half their score, labelled as such. The index is
 * kept per file in memory (LRU) and rebuilt when the file changed size (knowledge files are
 * small: a few hundred records per long session).
 */
import { promises as fsp } from "node:fs";
import { globalSingleton } from "../../infra/global-singleton.js";
import { LruMap } from "../state/lru.js";
import { quoteUntrusted } from "../inject/quote.js";
import { SearchIndex } from "./search-index.js";
import type { ArchiveRecord } from "./store.js";
import { type KnowledgeEntry, readKnowledge } from "./knowledge-store.js";

export interface KnowledgeHit {
  entry: KnowledgeEntry;
  score: number;
}

const SUPERSEDED_WEIGHT = 0.5;

interface Loaded {
  size: number;
  index: SearchIndex;
  entries: Map<string, KnowledgeEntry>;
}

const cache = (): LruMap<string, Loaded> => globalSingleton("openclaw.contextManager.knowledgeIndex", () => new LruMap(16));

function asRecord(e: KnowledgeEntry, seq: number): ArchiveRecord {
  return { v: 1, id: e.id, seq, role: "assistant", t: e.t, at: e.t, session: e.session, compaction: 0, text: e.text, tool: e.kind, target: e.subject };
}

/** The index of `file`, loaded or refreshed when its size changed; null when there is no file. */
export async function knowledgeIndex(file: string): Promise<Loaded | null> {
  let size: number;
  try {
    size = (await fsp.stat(file)).size;
  } catch {
    return null;
  }
  const hit = cache().get(file);
  if (hit && hit.size === size) return hit;
  const loaded = { size, ...indexKnowledge(await readKnowledge(file)) };
  cache().touch(file, loaded);
  return loaded;
}

/** An index over `entries` (the replay measures the file as it stood at each request). */
export function indexKnowledge(entries: readonly KnowledgeEntry[]): Omit<Loaded, "size"> {
  const index = new SearchIndex();
  index.add(entries.map((e, i) => asRecord(e, i + 1)));
  return { index, entries: new Map(entries.map((e) => [e.id, e])) };
}

/**
 * The index as this process last loaded it (possibly stale), never waiting: a refresh is
 * started in the background (the automatic recall's path reads no file).
 */
export function cachedKnowledgeIndex(file: string): Loaded | null {
  void knowledgeIndex(file).catch(() => undefined);
  return cache().get(file) ?? null;
}

/** Records matching `query`, best first (superseded ones at half score); `minUnits`: minimum score in the index's score units. */
export function searchKnowledge(
  loaded: Omit<Loaded, "size"> | null,
  query: string,
  limit: number,
  opts: { skipTerm?: (term: string) => boolean; minUnits?: number } = {},
): KnowledgeHit[] {
  if (!loaded || !query.trim()) return [];
  const out: KnowledgeHit[] = [];
  const minScore = opts.minUnits === undefined ? undefined : opts.minUnits * loaded.index.scoreUnit();
  for (const h of loaded.index.search(query, { limit: Math.min(100, limit * 3), ...(opts.skipTerm ? { skipTerm: opts.skipTerm } : {}), ...(minScore === undefined ? {} : { minScore }) })) {
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
