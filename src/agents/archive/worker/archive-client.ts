/**
 * The main thread's side of the archive worker: searches and evictions of archives run in one
 * worker thread per process (archive-worker.ts), so loading, indexing and saving a large
 * archive never blocks the event loop a gateway serves every chat from (issue 24).
 *
 * The worker is started on first use and does not keep the process alive while idle (it is
 * ref'd only while a request is pending). When it cannot start (no worker_threads, a source
 * checkout without tsx) or keeps dying, the same operations run in this thread
 * (archive-host.ts): slower for the loop, never a lost search.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { debugLog } from "../../../infra/debug-log.js";
import { globalSingleton } from "../../../infra/global-singleton.js";
import * as inThread from "./archive-host.js";
import type { WorkerReplies, WorkerReply, WorkerRequest } from "./protocol.js";

/** Worker deaths after which the process stops starting it again and works in-thread. */
const MAX_CRASHES = 3;

type Op = WorkerRequest["op"];
type ArgsOf<O extends Op> = Extract<WorkerRequest, { op: O }>["args"];

/**
 * The worker as this build runs it: the built .js entry beside this file, or, in a source
 * checkout (tsx, vitest), a small module that registers tsx's loader in the worker's thread
 * before importing the .ts entry (a worker does not inherit the loader hooks).
 */
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

class ArchiveWorkerClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private crashes = 0;
  private budget: number | null = null;

  private get usable(): boolean {
    return this.crashes < MAX_CRASHES && process.env.OPENCLAW_CONTEXT_ARCHIVE_WORKER !== "0";
  }

  private start(): Worker | null {
    if (this.worker) return this.worker;
    if (!this.usable) return null;
    const spec = workerSpec();
    if (!spec) {
      this.crashes = MAX_CRASHES;
      return null;
    }
    try {
      const w = new Worker(spec.code, { eval: spec.eval });
      w.unref();
      w.on("message", (m: WorkerReply) => this.settle(m));
      w.on("error", (e) => this.died(w, e));
      w.on("exit", (code) => this.died(w, new Error(`archive worker exited (${code})`)));
      this.worker = w;
      if (this.budget !== null) this.post(w, { id: this.nextId++, op: "budget", args: { bytes: this.budget } });
      return w;
    } catch (e) {
      debugLog("archive worker", e);
      this.crashes = MAX_CRASHES;
      return null;
    }
  }

  private post(w: Worker, req: WorkerRequest): void {
    w.postMessage(req);
  }

  private settle(m: WorkerReply): void {
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
    this.crashes++;
    debugLog("archive worker", e);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(e);
  }

  /** Where the operations run now (tests, the debug log). */
  get mode(): "worker" | "in-thread" | "not started" {
    return this.worker ? "worker" : this.usable ? "not started" : "in-thread";
  }

  /** Runs `op` in the worker (or in this thread when there is none). */
  call<O extends Op>(op: O, args: ArgsOf<O>): Promise<WorkerReplies[O]> {
    const w = this.start();
    if (!w) return runInThread(op, args);
    const id = this.nextId++;
    return new Promise<WorkerReplies[O]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // a pending request keeps the process alive (a CLI awaiting a search), an idle worker does not
      w.ref();
      this.post(w, { id, op, args } as WorkerRequest);
    }).catch((e: unknown) => {
      // the worker died under this request: once more in this thread
      debugLog("archive worker request", e);
      return runInThread(op, args);
    });
  }

  setBudget(bytes: number): void {
    if (this.budget === bytes) return;
    this.budget = bytes;
    inThread.setArchiveBudget(bytes);
    const w = this.worker;
    if (w) this.post(w, { id: this.nextId++, op: "budget", args: { bytes } });
  }
}

function runInThread<O extends Op>(op: O, args: ArgsOf<O>): Promise<WorkerReplies[O]> {
  const a = args as never;
  const run: Record<Op, () => unknown> = {
    search: () => inThread.search(a),
    knowledge: () => inThread.searchKnowledgeFile(a),
    compact: () => inThread.compact(a),
    warm: () => inThread.warm(a),
    drop: () => inThread.drop(a),
    budget: () => inThread.setArchiveBudget((args as { bytes: number }).bytes),
  };
  return Promise.resolve(run[op]()) as Promise<WorkerReplies[O]>;
}

export const archiveWorker = (): ArchiveWorkerClient => globalSingleton("openclaw.contextManager.archiveWorker", () => new ArchiveWorkerClient());
