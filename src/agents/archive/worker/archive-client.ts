/**
 * The main thread's side of the archive worker. When no worker can start, the operations run in this thread; a
 * request a worker died under is never re-run here, where the same input would take the host down.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { debugLog } from "../../../infra/debug-log.js";
import { processServices } from "../../../infra/process-services.js";
// the worker's entry: a host loader that runs a plugin from a copy of the sources it imported
// (OpenClaw's plugin source capture) then has the file the worker loads
import { type ArgsOf, hostOps, type Op, READY_ID, runOp, WORKER_ROLE } from "./archive-worker.js";
import type { WorkerReplies, WorkerReply, WorkerRequest } from "./archive-worker.js";

/** Deaths before "ready" after which the process stops starting workers and works in-thread. */
const MAX_START_FAILURES = 3;

/** A request whose worker died under it, twice: the archive is unavailable for this request. */
export class ArchiveWorkerDiedError extends Error {
  constructor(op: string, cause: Error) {
    super(`the archive worker died during "${op}" twice: ${cause.message}`);
    this.name = "ArchiveWorkerDiedError";
  }
}

/** The worker died (not an operation that failed inside a live worker); before it was ready, it never read the
 * request (a module it cannot load). */
class WorkerDeath extends Error {}
class WorkerStartFailure extends Error {}

/** The built .js entry beside this file, or in a source checkout a module registering tsx's loader first. */
function workerSpec(): { code: string | URL; eval: boolean } | null {
  const self = import.meta.url;
  if (!self.endsWith(".ts")) return { code: new URL("./archive-worker.js", self), eval: false };
  try {
    // the ESM build of tsx's API (require.resolve would give the CommonJS one)
    const pkg = createRequire(self).resolve("tsx/package.json");
    const api = pathToFileURL(path.join(path.dirname(pkg), "dist", "esm", "api", "index.mjs")).href;
    const entry = new URL("./archive-worker.ts", self).href;
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return { code, eval: true };
  } catch {
    return null;
  }
}

export class ArchiveWorkerClient {
  private worker: Worker | null = null;
  private ready = false;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** deaths before the worker said it was ready, in a row: the environment cannot run it */
  private startFailures = 0;
  private budget: ArgsOf<"budget"> | null = null;
  /** deaths under a request, for tests and the debug log */
  deaths = 0;

  /**
   * `heapMiB`: the worker's old-generation heap limit (default: Node's, or OPENCLAW_CONTEXT_ARCHIVE_WORKER_HEAP_MB);
   * `evalSource`: the worker's code, evaluated (tests: a worker that cannot load); default: this build's entry.
   */
  constructor(private readonly opts: { heapMiB?: number; evalSource?: string } = {}) {}

  private get usable(): boolean {
    return this.startFailures < MAX_START_FAILURES && process.env.OPENCLAW_CONTEXT_ARCHIVE_WORKER !== "0";
  }

  /** Starts the worker (ahead of a likely compaction, whose append then skips the ~0.8 s start). */
  prestart(): Worker | null {
    if (this.worker || !this.usable) return this.worker;
    const env = Number(process.env.OPENCLAW_CONTEXT_ARCHIVE_WORKER_HEAP_MB);
    const { evalSource, heapMiB = Number.isFinite(env) && env >= 16 ? Math.floor(env) : undefined } = this.opts;
    const spec = evalSource !== undefined ? { code: evalSource, eval: true } : workerSpec();
    try {
      if (!spec) throw new Error("no archive worker entry (tsx not found)");
      const w = new Worker(spec.code, { eval: spec.eval, workerData: { role: WORKER_ROLE }, ...(heapMiB ? { resourceLimits: { maxOldGenerationSizeMb: heapMiB } } : {}) });
      this.ready = false;
      w.on("message", (m: WorkerReply) => this.settle(m));
      w.on("error", (e) => this.died(w, e));
      w.on("exit", (code) => this.died(w, new Error(`archive worker exited (${code})`)));
      // after the listeners: adding a "message" listener refs the worker's port again, and an idle
      // worker started ahead of any request (prestart) then kept a CLI from exiting
      w.unref();
      this.postBudget((this.worker = w));
      return w;
    } catch (e) {
      debugLog("archive worker", e);
      this.startFailures = MAX_START_FAILURES;
      return null;
    }
  }

  private settle(m: WorkerReply): void {
    if (m.id === READY_ID) {
      if (!this.ready) debugLog("archive worker", "ready");
      this.ready = true;
      this.startFailures = 0;
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(m.error));
  }

  private died(w: Worker, e: Error): void {
    if (this.worker !== w) return;
    this.worker = null;
    if (this.ready) this.deaths++;
    else this.startFailures++;
    debugLog("archive worker", e);
    const death = this.ready ? new WorkerDeath(e.message) : new WorkerStartFailure(e.message);
    for (const p of this.pending.values()) p.reject(death);
    this.pending.clear();
  }

  /** Where the operations run now (tests, the debug log). */
  get mode(): "worker" | "in-thread" | "not started" {
    return this.worker ? "worker" : this.usable ? "not started" : "in-thread";
  }

  /** Runs `op` in the worker (or in this thread when no worker can run here); `deaths`: of workers under it so far. */
  call<O extends Op>(op: O, args: ArgsOf<O>, deaths = 0): Promise<WorkerReplies[O]> {
    return this.send(op, args).catch((e: unknown) => {
      // a worker that never started never read it: again (after MAX_START_FAILURES in a row, send runs it here)
      if (e instanceof WorkerStartFailure) return this.call(op, args, deaths);
      if (!(e instanceof WorkerDeath)) throw e;
      // the worker died under this request: once more in a fresh one, never in this thread
      debugLog("archive worker request", e);
      if (deaths >= 1) throw new ArchiveWorkerDiedError(op, e);
      return this.call(op, args, deaths + 1);
    });
  }

  private send<O extends Op>(op: O, args: ArgsOf<O>): Promise<WorkerReplies[O]> {
    const w = this.prestart();
    if (!w) return Promise.resolve(runOp(op, args));
    const id = this.nextId++;
    try {
      // structured clone happens here: what cannot be cloned (a host's message carrying a
      // function, say) is never lost, it is worked on in this thread instead
      w.postMessage({ id, op, args } as WorkerRequest);
    } catch (e) {
      if ((e as Error)?.name !== "DataCloneError") return Promise.reject(e as Error);
      debugLog("archive worker", e);
      return Promise.resolve(runOp(op, args));
    }
    return new Promise<WorkerReplies[O]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // a pending request keeps the process alive (a CLI awaiting a search), an idle worker does not
      w.ref();
    });
  }

  /** The archives' budget, and the append tails' (store.ts) and knowledge indexes', here and in the worker. */
  setBudget(bytes: number, tailBytes: number, knowledgeBytes: number): void {
    // applied each time it is asked (applyCacheBudget asks when cacheMemoryMiB changed, or when the
    // process's file stores were made anew): the knowledge indexes of this thread may be new ones
    hostOps.budget((this.budget = { bytes, tailBytes, knowledgeBytes }));
    this.postBudget(this.worker);
  }

  private postBudget(w: Worker | null): void {
    if (this.budget) w?.postMessage({ id: this.nextId++, op: "budget", args: this.budget } satisfies WorkerRequest);
  }

  /** Stops the worker (tests that start their own client). */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }
}

declare module "../../../infra/process-services.js" {
  interface ProcessServices { archiveWorker?: ArchiveWorkerClient }
}

export const archiveWorker = (): ArchiveWorkerClient => (processServices().archiveWorker ??= new ArchiveWorkerClient());
