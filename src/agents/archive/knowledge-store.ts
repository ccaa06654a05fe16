/**
 * The knowledge layer, LLM-free (docs/archive.md#knowledge-layer): a checkpoint's facts as typed records, the kind
 * given by the checkpoint field a fact comes from, never by words in it. `knowledge.jsonl` is append-only: a later
 * record of a `subject` supersedes the live one by a mark line `{"v":1,"superseded":"<id>","by":"<id>"}`. Files are
 * followed in two caches kept by memory: the writer's (dedup, live subjects) and the searches' (indexed).
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { BudgetCache } from "../../infra/budget-cache.js";
import { fileStores } from "../../infra/process-services.js";
import type { Checkpoint, ToolFailure } from "../checkpoint/schema.js";
import { redactSecrets } from "../text/redact.js";
import { SearchIndex } from "./archive.js";
import { type ArchiveRecord, appendLines, archiveDir, hashId, orNull, readNewLines } from "./store.js";

const KNOWLEDGE_KINDS = ["decision", "implementation", "config", "issue", "task_state", "architecture"] as const;
type KnowledgeKind = (typeof KNOWLEDGE_KINDS)[number];

/** `subject`: what the fact is about (records of one subject supersede each other); `t`: when it was true (ms). */
type KnowledgeDraft = { kind: KnowledgeKind; subject: string; text: string; t: number };

const KINDS: ReadonlySet<string> = new Set(KNOWLEDGE_KINDS);

/** `id`: 16 hex of sha256(kind, subject, text), the dedup key; `checkpoint`: the one it came from. */
type KnowledgeRecord = KnowledgeDraft & { v: 1; id: string; checkpoint: string; session: string };

const TEXT_MAX = 400;
/** config formats, by file name syntax */
const CONFIG_FILE = /(^|\/)(\.[^/]+|[^/]+\.(json|jsonc|json5|ya?ml|toml|ini|cfg|conf|env|properties))$/i;

const ms = (iso: string | undefined, fallback: number): number => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : fallback;
};

const clean = (s: string): string => redactSecrets(s.replace(/\s+/g, " ").trim()).slice(0, TEXT_MAX);

const failureKey = (f: ToolFailure): string => `${f.tool}\0${f.target}`;

/** The checkpoint's facts as knowledge drafts, in field order. Total: a missing section gives none. */
export function knowledgeOf(cp: Checkpoint): KnowledgeDraft[] {
  const out: KnowledgeDraft[] = [];
  const at = ms(cp.meta?.created_at, 0);
  const push = (kind: KnowledgeKind, subject: string, text: string, t = at) => {
    const body = clean(text);
    if (body) out.push({ kind, subject: subject.slice(0, 300), text: body, t });
  };
  for (const d of cp.decisions ?? []) push("decision", `decision:${d.id}`, d.what, ms(d.when, at));
  const work = cp.work;
  for (const f of work?.files ?? []) {
    const names = f.names?.length ? ` (declares ${f.names.slice(0, 8).join(", ")})` : "";
    const kind: KnowledgeKind = CONFIG_FILE.test(f.path) ? "config" : f.edits === 0 && f.writes > 0 && f.names?.length ? "architecture" : "implementation";
    push(kind, `file:${f.path}`, `${f.path}: ${f.change}${names}; ${f.edits} edits, ${f.writes} writes`, ms(f.last, at));
  }
  const open = new Set((work?.open_failures ?? []).map(failureKey));
  const seen = new Set<string>();
  for (const f of [...(work?.open_failures ?? []), ...(cp.thread?.errors ?? [])]) {
    const k = failureKey(f);
    if (seen.has(k)) continue;
    seen.add(k);
    // a failure the ledger no longer holds open was fixed (a later run of the same target succeeded)
    const state = work ? (open.has(k) ? "open" : "fixed") : "seen";
    push("issue", `failure:${f.tool}:${f.target}`, `${f.tool} ${f.target} failed: ${f.error} [${state}]`, ms(f.when, at));
  }
  for (const c of work?.commands ?? []) {
    const outcome = c.ok ? "ok" : `failed${c.exit === null ? "" : ` (exit ${c.exit})`}`;
    push("task_state", `command:${c.family}`, `ran ${c.command}: ${outcome}; ${c.runs} runs, ${c.failures} failed`, ms(c.when, at));
  }
  for (const r of work?.requests ?? []) push("task_state", `request:${hashId("task_state", "", r)}`, `user asked: ${r}`);
  const w = cp.working;
  if (w?.topic || w?.next_action) push("task_state", "working", `${w.topic} [${w.status}]${w.next_action ? `; next: ${w.next_action}` : ""}`);
  for (const item of cp.open_items ?? []) push("task_state", `open:${hashId("task_state", "", item)}`, `open: ${item}`);
  for (const l of cp.learnings ?? []) push("architecture", `learning:${hashId("architecture", "", l)}`, l);
  return out;
}

/** `supersededBy`: id of the record that replaced it. */
export type KnowledgeEntry = KnowledgeRecord & { supersededBy?: string };

export const knowledgeFile = (stateDir: string, sessionKey: string): string =>
  path.join(archiveDir(stateDir, sessionKey), "knowledge.jsonl");

/** The file's records (in order, supersede marks applied); empty when there is none. */
async function readFollowed(file: string): Promise<Followed> {
  const state = emptyKnowledgeState();
  applyKnowledgeLines(state, (await readNewLines(file, 0).catch(() => null))?.lines ?? []);
  return state;
}

export async function readKnowledge(file: string): Promise<KnowledgeEntry[]> {
  return [...(await readFollowed(file)).entries.values()];
}

/** A file's records as appends and searches follow it: `live` maps kind + subject to the id of its live (latest)
 * record; `size`: bytes of the file applied (whole lines). */
type Followed = { entries: Map<string, KnowledgeEntry>; live: Map<string, string>; size: number };

export const emptyKnowledgeState = (): Followed => ({ entries: new Map(), live: new Map(), size: 0 });
const subjectKey = (r: { kind: string; subject: string }) => `${r.kind}\0${r.subject}`;

/** Applies whole lines to `state` (O(lines)); returns the records that were new. A torn or foreign line is skipped. */
export function applyKnowledgeLines(state: Followed, lines: readonly string[]): KnowledgeEntry[] {
  const added: KnowledgeEntry[] = [];
  for (const line of lines) {
    const v = line ? orNull(() => JSON.parse(line) as Record<string, unknown> | null) : null;
    if (v?.v !== 1) continue;
    if (typeof v.superseded === "string" && typeof v.by === "string") {
      const r = state.entries.get(v.superseded);
      if (r) r.supersededBy = v.by;
      continue;
    }
    const valid = typeof v.id === "string" && KINDS.has(String(v.kind)) && typeof v.subject === "string";
    if (!valid || typeof v.text !== "string" || state.entries.has(v.id as string)) continue;
    const e = { ...v } as unknown as KnowledgeEntry;
    state.entries.set(e.id, e);
    state.live.set(subjectKey(e), e.id);
    added.push(e);
  }
  return added;
}

/** Appends the drafts not recorded yet (superseding a live record of the subject): one write. */
export async function appendKnowledge(
  file: string,
  drafts: readonly KnowledgeDraft[],
  origin: { checkpoint: string; session: string },
  /** the file's records as the caller follows them (followKnowledge): no full read */
  known?: Followed,
): Promise<{ added: number; superseded: number }> {
  const state = known ?? (await readFollowed(file));
  const ids = new Set<string>();
  const live = new Map<string, string>(); // subjects changed by these drafts
  let lines = "";
  let superseded = 0;
  for (const d of drafts) {
    const id = hashId(d.kind, d.subject, d.text);
    if (ids.has(id) || state.entries.has(id)) continue;
    ids.add(id);
    const record: KnowledgeRecord = { v: 1, id, kind: d.kind, subject: d.subject, text: d.text, t: d.t, ...origin };
    lines += `${JSON.stringify(record)}\n`;
    const subject = subjectKey(d);
    const old = live.get(subject) ?? state.live.get(subject);
    if (old && old !== id && !state.entries.get(old)?.supersededBy) {
      lines += `${JSON.stringify({ v: 1, superseded: old, by: id })}\n`;
      superseded++;
    }
    live.set(subject, id);
  }
  if (lines) await appendLines(file, lines);
  return { added: ids.size, superseded };
}

/** Heap of a followed / indexed file: its bytes plus this per record (20,000 records: within 1% of measured; indexed
 * 37.7 / 43.8 MB); the budgets hold until the engine applies `cacheMemoryMiB` (engine/cache-budget.ts). */
const FOLLOWED_BYTES_PER_RECORD = 170;
const INDEXED_BYTES_PER_RECORD = 1_650;
const DEFAULT_FOLLOWED_BUDGET_BYTES = 5 * 2 ** 20;
const DEFAULT_INDEX_BUDGET_BYTES = 8 * 2 ** 20;

type Indexed = Followed & { index: SearchIndex };

// by knowledge.jsonl: followed for this process's appends; indexed where the searches run (the archive worker)
declare module "../../infra/process-services.js" {
  interface FileStores {
    knowledgeFollowers?: BudgetCache<string, Followed>;
    knowledgeIndexes?: BudgetCache<string, Indexed>;
  }
}

/** Files this process follows for its appends (dedup ids, live subjects), kept by memory; evicted: read again. */
export const knowledgeFollowers = (): BudgetCache<string, Followed> =>
  (fileStores().knowledgeFollowers ??= new BudgetCache<string, Followed>("knowledge follower", DEFAULT_FOLLOWED_BUDGET_BYTES, (f) => 256 + f.size + f.entries.size * FOLLOWED_BYTES_PER_RECORD));

/** The loaded indexes, kept by memory: each grows with its key's checkpoints; an evicted one is read again at its next search. */
export const knowledgeIndexes = (): BudgetCache<string, Indexed> =>
  (fileStores().knowledgeIndexes ??= new BudgetCache<string, Indexed>("knowledge index", DEFAULT_INDEX_BUDGET_BYTES, (l) => 1_024 + l.size + l.entries.size * INDEXED_BYTES_PER_RECORD));

/** Lines applied per event-loop turn: a cold load of a long session's file never blocks the loop long. */
const LINES_PER_TURN = 256;

/** Follows `file` in `cache`: new lines only, a batch per event-loop turn; afresh when it shrank; none: no file. */
async function followFile<T extends Followed>(file: string, cache: BudgetCache<string, T>, fresh: () => T, apply: (f: T, lines: string[]) => void): Promise<T | undefined> {
  const size = await fsp.stat(file).then((st) => st.size, () => -1);
  if (size < 0) return void cache.delete(file);
  const known = cache.get(file);
  let f = known && size >= known.size ? known : fresh();
  // read only past a stat's size: a FIFO (size 0) is never opened
  const read = size > f.size ? await readNewLines(file, f.size) : null;
  if (read?.fresh) f = fresh();
  const lines = read?.lines ?? [];
  for (let i = 0; i < lines.length; i += LINES_PER_TURN) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    apply(f, lines.slice(i, i + LINES_PER_TURN));
  }
  if (read) f.size = read.offset;
  if (f !== known || cache.peek(file) === known) cache.set(file, f); // weighed again: it grew by what was applied
  return f;
}

/** The file's records for `appendKnowledge` (no index: searches run in the worker); calls serialized per file. */
export function followKnowledge(file: string): Promise<Followed | undefined> {
  return followFile(file, knowledgeFollowers(), emptyKnowledgeState, applyKnowledgeLines);
}

export type KnowledgeHit = { entry: KnowledgeEntry; score: number };

const SUPERSEDED_WEIGHT = 0.5;

/** refreshes in flight, per file: one at a time, so a tail is applied once */
const refreshing = new Map<string, Promise<Indexed | null>>();

export function asRecord(e: KnowledgeEntry, seq: number): ArchiveRecord {
  return { v: 1, id: e.id, seq, role: "assistant", t: e.t, at: e.t, session: e.session, compaction: 0, text: e.text, tool: e.kind, target: e.subject };
}

/** The index of `file`, loaded or followed to its current end; null when there is no file. */
export function knowledgeIndex(file: string): Promise<Indexed | null> {
  const fresh = (): Indexed => ({ ...emptyKnowledgeState(), index: new SearchIndex() });
  const apply = (loaded: Indexed, lines: string[]) =>
    loaded.index.add(applyKnowledgeLines(loaded, lines).map((e) => asRecord(e, loaded.entries.size)));
  const refresh = async () => (await followFile(file, knowledgeIndexes(), fresh, apply)) ?? null;
  const run = (refreshing.get(file) ?? Promise.resolve()).catch(() => null).then(refresh);
  const settled = run.finally(() => {
    if (refreshing.get(file) === settled) refreshing.delete(file);
  });
  refreshing.set(file, settled);
  return run;
}

/** Records matching `query`, best first (superseded ones at half score); `minUnits`: minimum score in the index's score units. */
export function searchKnowledge(
  loaded: Pick<Indexed, "index" | "entries"> | null,
  query: string,
  limit: number,
  opts: { skipTerm?: (term: string) => boolean; minUnits?: number } = {},
): KnowledgeHit[] {
  if (!loaded || !query.trim()) return [];
  const out: KnowledgeHit[] = [];
  for (const h of loaded.index.search(query, { ...opts, limit: Math.min(100, limit * 3) })) {
    const entry = loaded.entries.get(h.record.id);
    if (entry) out.push({ entry, score: entry.supersededBy ? h.score * SUPERSEDED_WEIGHT : h.score });
  }
  return out.sort((a, b) => b.score - a.score).slice(0, limit);
}
