/**
 * An idle archive worker never keeps a process alive: a CLI (pi's print mode) whose engine
 * started the worker ahead of any request (the gauge showed) must still exit when its work is done.
 * Adding the worker's "message" listener after `unref()` had refed its port: the process hung.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHILD_TIMEOUT_MS, TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const REPO = join(import.meta.dirname, "../..");
const CLIENT = join(REPO, "src/agents/archive/worker/archive-client.ts");

function runChild(code: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: REPO, timeout: CHILD_TIMEOUT_MS }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : null) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

describe("an idle archive worker", () => {
  it("started ahead of any request, and after a request: the process exits by itself", async () => {
    const prestarted = runChild(`
      const { archiveWorker } = await import(${JSON.stringify(CLIENT)});
      archiveWorker().prestart();
      console.log(archiveWorker().mode);`);
    const afterCall = runChild(`
      const { archiveWorker } = await import(${JSON.stringify(CLIENT)});
      archiveWorker().prestart();
      const hits = await archiveWorker().call("knowledge", { file: "/nonexistent/knowledge.jsonl", query: "x", limit: 1 });
      console.log(archiveWorker().mode, hits.length);`);
    const [a, b] = await Promise.all([prestarted, afterCall]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout.trim()).toBe("worker");
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout.trim()).toBe("worker 0");
  }, TEST_TIMEOUT_MS);
});
