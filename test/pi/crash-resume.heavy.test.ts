/**
 * Issue 11 item 7 (spec §7.3, §10.1, §12): a real `pi --mode rpc` process captures work (a file
 * written, a failed read, the user's request) and is SIGKILLed before any checkpoint. The next
 * pi session on the same key must not lose it: its first checkpoint bundles the dead session's
 * state files (marked `recovered`), and the resume block the model receives shows that work.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { canonicalSessionKey, stateSessionDir } from "../../src/infra/session-dir.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { CONTEXT_MANAGER_TS, makePiHome, PI, type PiHome, startsWith } from "./pi-env.js";
import { REPO } from "../cli/run.js";
import { PiRpc } from "./rpc-client.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const WORKER = join(REPO, "test", "pi", "fixtures", "faux-worker.ts");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function workerArgs(home: PiHome): string[] {
  // baseArgs without --no-tools: the worker calls write and read
  return home.baseArgs([CONTEXT_MANAGER_TS], WORKER).filter((a) => a !== "--no-tools").concat(["--tools", "read,write"]);
}

function readJson(file: string): { session_id: string; data: unknown } | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { session_id: string; data: unknown };
  } catch {
    return null;
  }
}

describe("crash before any checkpoint, then a new session on the same key", () => {
  let home: PiHome | undefined;
  const procs: PiRpc[] = [];
  afterAll(async () => {
    for (const p of procs) await p.close();
    home?.cleanup();
  });

  it("the next session's first checkpoint bundles the killed session's state, and its resume block shows it", async () => {
    home = await makePiHome({ window: 32_000 });
    mkdirSync(join(home.cwd, "src"), { recursive: true });
    const key = `pi:${home.cwd}`;
    const stateDir = stateSessionDir(home.stateDir, canonicalSessionKey(key));
    const env = { ...home.env, FAUX_WORK_FILE: "src/parse.ts" };

    const first = new PiRpc(PI, workerArgs(home), { cwd: home.cwd, env: { ...env, FAUX_WORK: "1" } });
    procs.push(first);
    await first.command({ type: "prompt", message: "Build the comma parser in src/parse.ts" });
    expect(readFileSync(join(home.cwd, "src", "parse.ts"), "utf8")).toContain("split");
    // wait until the capture is on disk (the debounced flush), then crash: no handler runs
    let crashedId = "";
    for (let i = 0; i < 200; i++) {
      const work = readJson(join(stateDir, "work.json"));
      const thread = readJson(join(stateDir, "thread.json"));
      if (work && thread && JSON.stringify(work.data).includes("src/parse.ts") && JSON.stringify(thread.data).includes("missing-spec.md")) {
        crashedId = work.session_id;
        break;
      }
      await sleep(50);
    }
    expect(crashedId).not.toBe("");
    expect(readCheckpointsOnDisk(home.stateDir, key)).toHaveLength(0);
    await first.kill("SIGKILL");

    const second = new PiRpc(PI, workerArgs(home), { cwd: home.cwd, env: { ...env, FAUX_WORK: "0" } });
    procs.push(second);
    await second.command({ type: "prompt", message: "Where were we?" });

    // the first checkpoint on disk: the dead session's work, bundled by the new session
    const cps = readCheckpointsOnDisk(home.stateDir, key);
    expect(cps).toHaveLength(1);
    const cp = cps[0]!;
    expect(cp.meta.session_id).toBe(crashedId);
    expect(cp.meta.trigger).toBe("session-end");
    expect(cp.recovered?.by_session_id).toEqual(expect.any(String));
    expect(cp.recovered?.by_session_id).not.toBe(crashedId);
    expect(cp.recovered?.files).toEqual(expect.arrayContaining(["thread", "work", "resources"]));
    expect(cp.recovered?.files_modified_since_checkpoint).toEqual(["src/parse.ts"]);
    expect(cp.work?.files.map((f) => f.path)).toEqual(["src/parse.ts"]);
    expect(cp.work?.requests).toEqual(["Build the comma parser in src/parse.ts"]);
    expect(cp.thread.errors.map((e) => e.target)).toEqual(["docs/missing-spec.md"]);

    // what the model of the new session was sent: one resume block, showing the dead session's work
    const request = home.requests().at(-1)!;
    const blocks = startsWith(request, RESTORE_HEADER_RESUME);
    expect(blocks).toHaveLength(1);
    const block = blocks[0]!;
    if (process.env.SHOW_BLOCK) console.log(block);
    expect(block).toContain(cp.meta.checkpoint_id);
    expect(block).toContain("ended (crash, exit or /new) before a checkpoint held all its work");
    expect(block).toContain("src/parse.ts");
    expect(block).toContain("missing-spec.md");
    expect(block).toContain("Build the comma parser in src/parse.ts");

    // nothing of the dead session is left to bundle twice, and nothing was moved to stale/
    const left = readdirSync(stateDir).filter((f) => f.endsWith(".json"));
    expect(left.filter((f) => f.startsWith("previous."))).toEqual([]);
    for (const f of left) expect(readJson(join(stateDir, f))?.session_id).not.toBe(crashedId);
    expect(existsSync(join(stateDir, "stale"))).toBe(false);
    expect(second.stderr).not.toMatch(/Extension error/);
  }, 3 * TEST_TIMEOUT_MS);
});
