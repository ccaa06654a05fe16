/**
 * Entry of the archive worker thread (archive-client.ts starts it): answers the main thread's
 * requests with archive-host.ts, one message per request, `{ id, ok, value | error }`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { READY_ID, runOp, WORKER_ROLE, type WorkerRequest } from "./archive-host.js";

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
