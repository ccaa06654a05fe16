/**
 * The archive worker thread's entry (archive-client.ts starts it; `{ id, ok, value | error }` per request) and its
 * operations, which the client runs in-thread when no worker can. Archives are held, by memory budget, where they are
 * searched: loading and indexing 20,000 segments cost seconds of CPU, none of it on the gateway's event loop.
 */
import path from "node:path";
import { getHeapStatistics } from "node:v8";
import { parentPort, workerData } from "node:worker_threads";
import { BudgetCache } from "../../../infra/budget-cache.js";
import { debugLog } from "../../../infra/debug-log.js";
import { type SearchHit, SessionArchive } from "../archive.js";
import { type KnowledgeHit, knowledgeIndex, knowledgeIndexes, searchKnowledge } from "../knowledge-store.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { segmentsOfSliced, stashedTextResolver } from "../segments.js";
import { type ArchiveLimits, appendToTail, type RecordOrigin, tails, type TailAppendResult } from "../store.js";

/** Heap bytes of a loaded, indexed archive per byte of its segments file: bench/archive-weight.ts measured 4.6 / 5.2 /
 * 4.66 at 1k / 5k / 20k segments (56.8 MiB for a 12.8 MB file); the worst of them, rounded up. */
export const LOADED_BYTES_PER_FILE_BYTE = 5.25;
const UNLOADED_BYTES = 2_048;
const DEFAULT_ARCHIVE_BUDGET_BYTES = 192 * 2 ** 20;

type ArchiveRef = { stateDir: string; sessionKey: string; limits: ArchiveLimits };

/** A query of the automatic recall or context_search (archive and knowledge alike): `minScoreUnits` in units of the
 * index's scoreUnit; query terms found in `visible` (what the agent sees) left out. */
type QueryRequest = { query: string; limit: number; minScoreUnits?: number; visible?: string };
type SearchReply = { ready: boolean; hits: SearchHit[]; size: number };

const skipVisible = (visible: string | undefined) => (visible ? (t: string) => visible.includes(t) : undefined);

const archives = new BudgetCache<string, SessionArchive>("archive", DEFAULT_ARCHIVE_BUDGET_BYTES, (a) =>
  a.isLoaded ? a.bytesOnDisk * LOADED_BYTES_PER_FILE_BYTE : UNLOADED_BYTES);

const keyOf = (ref: Pick<ArchiveRef, "stateDir" | "sessionKey">) => `${path.resolve(ref.stateDir)}\0${ref.sessionKey}`;

function archiveOf(ref: ArchiveRef): SessionArchive {
  let a = archives.get(keyOf(ref));
  if (!a) archives.set(keyOf(ref), (a = new SessionArchive(ref.stateDir, ref.sessionKey, ref.limits)));
  else a.limits = ref.limits;
  return a;
}

/** Loaded, caught up with the file and fully indexed (once ready: reads only what was appended since); re-weighed. */
async function ready(archive: SessionArchive): Promise<SessionArchive> {
  await archive.refresh(); // loads it first
  await archive.indexInBackground();
  archives.reweigh(keyOf(archive));
  return archive;
}

export const archiveCacheStats = () => archives.stats();

/** The operations, by name: what the worker answers and the client runs in-thread when no worker can. */
export const hostOps = {
  /** `ifReady`: answer `{ ready: false }` at once when the archive is not loaded and indexed (and start that). */
  async search(req: ArchiveRef & QueryRequest & { ifReady?: boolean }): Promise<SearchReply> {
    const archive = archiveOf(req);
    if (req.ifReady && !archive.isReady) {
      void ready(archive).catch((e) => debugLog("archive load", e));
      return { ready: false, hits: [], size: archive.size };
    }
    await ready(archive);
    const opts = { limit: req.limit, minUnits: req.minScoreUnits, skipTerm: skipVisible(req.visible) };
    return { ready: true, hits: archive.search(req.query, opts), size: archive.size };
  },
  /** A knowledge search, run where the archive's run (its index grows with the session). */
  async knowledge(req: QueryRequest & { file: string }): Promise<KnowledgeHit[]> {
    const opts = { skipTerm: skipVisible(req.visible), minUnits: req.minScoreUnits };
    return searchKnowledge(await knowledgeIndex(req.file), req.query, req.limit, opts);
  },
  /** Eviction and retention of an archive over its limits (a cold append found it over maxSegments). */
  async compact(ref: ArchiveRef): Promise<number> {
    const evicted = await archiveOf(ref).enforceLimits();
    archives.reweigh(keyOf(ref));
    return evicted;
  },
  /** Loads and indexes an archive ahead of the searches a compaction makes likely (automatic recall). */
  warm: async (ref: ArchiveRef): Promise<number> => (await ready(archiveOf(ref))).size,
  /** Forgets a key's archive object (its files were removed or rewritten by someone else). */
  drop: (ref: Pick<ArchiveRef, "stateDir" | "sessionKey">): void => void archives.delete(keyOf(ref)),
  /** Archives a committed turn or compacted span as the host gave it (redacted, cut into segments, appended without
   * loading the file: store.ts appendToTail). */
  async append(req: ArchiveRef & { messages: AgentMessage[]; origin: RecordOrigin }): Promise<TailAppendResult> {
    const drafts = await segmentsOfSliced(req.messages, stashedTextResolver(req.stateDir));
    return appendToTail(req.stateDir, req.sessionKey, drafts, req.origin, req.limits);
  },
  /** The budgets of this thread's loaded archives, the append tails it follows and the knowledge indexes. */
  budget(b: { bytes: number; tailBytes: number; knowledgeBytes: number }): void {
    const caches = [[archives, b.bytes], [tails, b.tailBytes], [knowledgeIndexes(), b.knowledgeBytes]] as const;
    for (const [cache, bytes] of caches) if (Number.isFinite(bytes) && bytes > 0) cache.setBudget(bytes);
  },
  /** What this thread holds (a gateway soak reads it); heapUsed: V8's, not collected first. */
  memory(_: null) {
    const pick = (s: { bytes: number; budgetBytes: number }) => ({ bytes: s.bytes, budgetBytes: s.budgetBytes });
    const [heapUsed, knowledge] = [getHeapStatistics().used_heap_size, pick(knowledgeIndexes().stats())];
    return { heapUsed, archives: pick(archives.stats()), tails: pick(tails.stats()), knowledgeIndexes: knowledge };
  },
};

/* The messages between the main thread and the worker. */
type Ops = typeof hostOps;
export type Op = keyof Ops;
export type ArgsOf<O extends Op> = Parameters<Ops[O]>[0];
export type WorkerRequest = { [O in Op]: { id: number; op: O; args: ArgsOf<O> } }[Op];
export type WorkerReplies = { [O in Op]: Awaited<ReturnType<Ops[O]>> };

/** Runs one operation (the worker's and the in-thread path's one dispatch). */
export const runOp = <O extends Op>(op: O, args: ArgsOf<O>): WorkerReplies[O] | Promise<WorkerReplies[O]> =>
  (hostOps[op] as (a: ArgsOf<O>) => WorkerReplies[O] | Promise<WorkerReplies[O]>)(args);

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** The id of the message a worker posts once it is loaded: a death before it is a failure to start. */
export const READY_ID = 0;

/** The worker's workerData role: the entry answers only a thread started by archive-client.ts (not a host's own worker that imported it). */
export const WORKER_ROLE = "openclaw-context-manager:archive-worker";

// only in the thread archive-client.ts started: this module is also imported in the main thread
// (so a host that captures a plugin's imported sources, as OpenClaw's loader does, has it) and
// may be in a host's own worker, whose port is not ours
const port = (workerData as { role?: unknown } | null)?.role === WORKER_ROLE ? parentPort : null;

port?.on("message", (req: WorkerRequest) => {
  // a throw of the op is a rejection: answered like one
  Promise.resolve(req).then((r) => runOp(r.op, r.args)).then(
    (value) => port.postMessage({ id: req.id, ok: true, value }),
    (e: unknown) => port.postMessage({ id: req.id, ok: false, error: (e as Error)?.message ?? String(e) }),
  );
});

port?.postMessage({ id: READY_ID, ok: true, value: null });
