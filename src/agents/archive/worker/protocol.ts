/** Messages between the main thread and the archive worker (archive-client.ts, archive-worker.ts). */
import type { hostOps } from "./archive-host.js";

type Ops = typeof hostOps;
export type Op = keyof Ops;
export type ArgsOf<O extends Op> = Parameters<Ops[O]>[0];
export type WorkerRequest = { [O in Op]: { id: number; op: O; args: ArgsOf<O> } }[Op];
export type WorkerReplies = { [O in Op]: Awaited<ReturnType<Ops[O]>> };

/** Runs one operation of `ops` (the worker's and the in-thread path's one dispatch). */
export const runOp = <O extends Op>(ops: Ops, op: O, args: ArgsOf<O>): WorkerReplies[O] | Promise<WorkerReplies[O]> =>
  (ops[op] as (a: ArgsOf<O>) => WorkerReplies[O] | Promise<WorkerReplies[O]>)(args);

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** The id of the message a worker posts once it is loaded: a death before it is a failure to start. */
export const READY_ID = 0;

/** The worker's workerData role: the entry answers only a thread started by archive-client.ts (not a host's own worker that imported it). */
export const WORKER_ROLE = "openclaw-context-manager:archive-worker";
