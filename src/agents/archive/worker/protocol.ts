/** Messages between the main thread and the archive worker (archive-client.ts, archive-worker.ts). */
import type { AppendRequest, ArchiveRef, HostMemory, KnowledgeSearchRequest, SearchReply, SearchRequest } from "./archive-host.js";
import type { TailAppendResult } from "../tail-append.js";
import type { KnowledgeHit } from "../knowledge-search.js";

export type WorkerRequest =
  | { id: number; op: "search"; args: SearchRequest }
  | { id: number; op: "knowledge"; args: KnowledgeSearchRequest }
  | { id: number; op: "compact"; args: ArchiveRef }
  | { id: number; op: "warm"; args: ArchiveRef }
  | { id: number; op: "drop"; args: Pick<ArchiveRef, "stateDir" | "sessionKey"> }
  | { id: number; op: "append"; args: AppendRequest }
  | { id: number; op: "budget"; args: { bytes: number; tailBytes?: number; knowledgeBytes?: number } }
  | { id: number; op: "memory"; args: null };

export interface WorkerReplies {
  search: SearchReply;
  knowledge: KnowledgeHit[];
  compact: number;
  warm: number;
  drop: void;
  append: TailAppendResult;
  budget: void;
  memory: HostMemory;
}

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** The id of the message a worker posts once it is loaded: a death before it is a failure to start. */
export const READY_ID = 0;

/** The worker's workerData role: the entry answers only a thread started by archive-client.ts (not a host's own worker that imported it). */
export const WORKER_ROLE = "openclaw-context-manager:archive-worker";
