/**
 * `knowledge.jsonl` beside `segments.jsonl`: a key's knowledge records, append-only. A record, or
 * a supersede mark `{"v":1,"superseded":"<id>","by":"<id>"}` when a later record of the subject
 * replaces it, so nothing is rewritten. Readers take whole lines and skip one that does not parse.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { BudgetCache } from "../../infra/budget-cache.js";
import { fileStores } from "../../infra/process-services.js";
import { appendLines, archiveDir, readFrom, wholeLines } from "./store.js";
import { KNOWLEDGE_KINDS, type KnowledgeDraft, type KnowledgeRecord, knowledgeId } from "./knowledge-records.js";

export const KNOWLEDGE_FILE = "knowledge.jsonl";

const KINDS: ReadonlySet<string> = new Set(KNOWLEDGE_KINDS);

export interface KnowledgeEntry extends KnowledgeRecord {
  /** id of the record that replaced it */
  supersededBy?: string;
}

export function knowledgeFile(stateDir: string, sessionKey: string): string {
  return path.join(archiveDir(stateDir, sessionKey), KNOWLEDGE_FILE);
}

function parse(line: string): KnowledgeRecord | { superseded: string; by: string } | null {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v?.v !== 1) return null;
    if (typeof v.superseded === "string" && typeof v.by === "string") return { superseded: v.superseded, by: v.by };
    if (typeof v.id === "string" && KINDS.has(String(v.kind)) && typeof v.subject === "string" && typeof v.text === "string") {
      return v as unknown as KnowledgeRecord;
    }
  } catch {
    // a torn or foreign line: skipped
  }
  return null;
}

/** The file's records in order, supersede marks applied; empty when there is none. */
export async function readKnowledge(file: string): Promise<KnowledgeEntry[]> {
  return [...(await readKnowledgeState(file)).entries.values()];
}

async function readKnowledgeState(file: string): Promise<KnowledgeState> {
  const state = emptyKnowledgeState();
  applyKnowledgeLines(state, wholeLines((await readFrom(file, 0).catch(() => null))?.buf ?? Buffer.alloc(0)).lines);
  return state;
}

/** What appends and searches need of a file's records, kept up to date line by line. */
export interface KnowledgeState {
  entries: Map<string, KnowledgeEntry>;
  /** kind + subject -> id of its live (latest) record */
  live: Map<string, string>;
}

export const emptyKnowledgeState = (): KnowledgeState => ({ entries: new Map(), live: new Map() });
const subjectKey = (r: { kind: string; subject: string }) => `${r.kind}\0${r.subject}`;

/** Applies whole lines to `state` (O(lines)); returns the records that were new. */
export function applyKnowledgeLines(state: KnowledgeState, lines: readonly string[]): KnowledgeEntry[] {
  const added: KnowledgeEntry[] = [];
  for (const line of lines) {
    if (!line) continue;
    const v = parse(line);
    if (!v) continue;
    if ("superseded" in v) {
      const r = state.entries.get(v.superseded);
      if (r) r.supersededBy = v.by;
    } else if (!state.entries.has(v.id)) {
      const e = { ...v };
      state.entries.set(v.id, e);
      state.live.set(subjectKey(e), e.id);
      added.push(e);
    }
  }
  return added;
}

/** Appends the drafts not recorded yet (superseding a live record of the subject): one write. */
export async function appendKnowledge(
  file: string,
  drafts: readonly KnowledgeDraft[],
  origin: { checkpoint: string; session: string },
  /** the file's records as the caller follows them (knowledge-search.ts): no full read */
  known?: KnowledgeState,
): Promise<{ added: number; superseded: number }> {
  const state = known ?? (await readKnowledgeState(file));
  const ids = new Set<string>();
  const live = new Map<string, string>(); // subjects changed by these drafts
  let lines = "";
  let added = 0;
  let superseded = 0;
  for (const d of drafts) {
    const id = knowledgeId(d);
    if (ids.has(id) || state.entries.has(id)) continue;
    ids.add(id);
    const record: KnowledgeRecord = { v: 1, id, kind: d.kind, subject: d.subject, text: d.text, t: d.t, ...origin };
    lines += `${JSON.stringify(record)}\n`;
    added++;
    const subject = subjectKey(d);
    const old = live.get(subject) ?? state.live.get(subject);
    if (old && old !== id && !state.entries.get(old)?.supersededBy) {
      lines += `${JSON.stringify({ v: 1, superseded: old, by: id })}\n`;
      superseded++;
    }
    live.set(subject, id);
  }
  if (lines) await appendLines(file, lines);
  return { added, superseded };
}

export interface Followed extends KnowledgeState {
  /** bytes of the file applied (whole lines) */
  size: number;
}

/** Heap of a followed file: its bytes plus this per record (20,000 records: within 1% of measured). */
export const FOLLOWED_BYTES_PER_RECORD = 170;
/** Until the engine applies `cacheMemoryMiB` (engine/cache-budget.ts `knowledgeFollowers`). */
const DEFAULT_FOLLOWED_BUDGET_BYTES = 5 * 2 ** 20;

/** Files this process follows for its appends (dedup ids, live subjects), kept by memory; evicted: read again. */
export const knowledgeFollowers = (): BudgetCache<string, Followed> =>
  (fileStores().knowledgeFollowers ??= new BudgetCache<string, Followed>("knowledge follower", DEFAULT_FOLLOWED_BUDGET_BYTES, (f) => 256 + f.size + f.entries.size * FOLLOWED_BYTES_PER_RECORD));

declare module "../../infra/process-services.js" {
  interface FileStores { knowledgeFollowers?: BudgetCache<string, Followed> } // by knowledge.jsonl
}

/** Lines applied per event-loop turn: a cold load of a long session's file never blocks the loop long. */
const LINES_PER_TURN = 256;

/** Follows `file` in `cache`: new lines only, a batch per event-loop turn; afresh when it shrank; none: no file. */
export async function followFile<T extends Followed>(file: string, cache: BudgetCache<string, T>, fresh: () => T, apply: (f: T, lines: string[]) => void): Promise<T | undefined> {
  let size: number;
  try {
    size = (await fsp.stat(file)).size;
  } catch {
    cache.delete(file);
    return undefined;
  }
  const known = cache.get(file);
  const f = known && size >= known.size ? known : fresh();
  if (size > f.size) {
    const { lines, consumed } = wholeLines((await readFrom(file, f.size))?.buf ?? Buffer.alloc(0));
    for (let i = 0; i < lines.length; i += LINES_PER_TURN) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      apply(f, lines.slice(i, i + LINES_PER_TURN));
    }
    f.size += consumed;
  }
  if (f !== known || cache.peek(file) === known) cache.set(file, f); // weighed again: it grew by what was applied
  return f;
}

/** The file's records for `appendKnowledge` (no index: searches run in the worker); calls serialized per file. */
export function followKnowledge(file: string): Promise<KnowledgeState | undefined> {
  return followFile(file, knowledgeFollowers(), () => ({ size: 0, ...emptyKnowledgeState() }), applyKnowledgeLines);
}
