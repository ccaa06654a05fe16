/**
 * Entry of the archive worker thread (archive-client.ts starts it): answers the main thread's
 * requests with archive-host.ts, one message per request, `{ id, ok, value | error }`.
 */
import { parentPort } from "node:worker_threads";
import { compact, drop, search, searchKnowledgeFile, setArchiveBudget, warm } from "./archive-host.js";
import { READY_ID, type WorkerRequest } from "./protocol.js";

async function run(req: WorkerRequest): Promise<unknown> {
  switch (req.op) {
    case "search":
      return search(req.args);
    case "knowledge":
      return searchKnowledgeFile(req.args);
    case "compact":
      return compact(req.args);
    case "warm":
      return warm(req.args);
    case "drop":
      return drop(req.args);
    case "budget":
      return setArchiveBudget(req.args.bytes);
  }
}

parentPort?.on("message", (req: WorkerRequest) => {
  run(req).then(
    (value) => parentPort!.postMessage({ id: req.id, ok: true, value }),
    (e: unknown) => parentPort!.postMessage({ id: req.id, ok: false, error: (e as Error)?.message ?? String(e) }),
  );
});

parentPort?.postMessage({ id: READY_ID, ok: true, value: null });
