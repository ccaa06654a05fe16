/**
 * `pi -p -c`: one prompt per process, continuing the same session file. pi disposes the
 * session when a print run ends while the threshold compaction it started is still running,
 * so the extension's compaction handlers get a stale ctx. Every compaction must still write
 * its checkpoint, and the next process must attach exactly one post-compaction block.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { run } from "../cli/run.js";
import { makePiHome, PI, type PiHome, startsWith } from "./pi-env.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

function compactionEntries(home: PiHome): number {
  const dirs = readdirSync(join(home.agentDir, "sessions"));
  let n = 0;
  for (const d of dirs) {
    for (const f of readdirSync(join(home.agentDir, "sessions", d))) {
      for (const line of readFileSync(join(home.agentDir, "sessions", d, f), "utf8").split("\n")) {
        if (line.includes('"type":"compaction"')) n++;
      }
    }
  }
  return n;
}

describe("pi -p -c across processes", () => {
  let home: PiHome;
  afterAll(() => home?.cleanup());

  it("writes a checkpoint for every compaction and delivers each post-compaction block once", async () => {
    home = await makePiHome({ settings: { compaction: { enabled: true, reserveTokens: 1000, keepRecentTokens: 600 } } });
    const prompt = (i: number) => `Question ${i}: ${"please consider this carefully ".repeat(180)}`;
    for (let i = 1; i <= 3; i++) {
      const args = ["-p", ...(i > 1 ? ["-c"] : []), ...home.baseArgs(), prompt(i)];
      const r = await run(PI, args, { cwd: home.cwd, env: home.env, timeoutMs: CHILD_TIMEOUT_MS });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/Extension error|context-manager/);
    }
    const compactions = compactionEntries(home);
    expect(compactions).toBeGreaterThanOrEqual(1);
    const cps = readCheckpointsOnDisk(home.stateDir, `pi:${home.cwd}`).filter((c) => c.meta.trigger === "compaction");
    expect(cps).toHaveLength(compactions);

    const reqs = home.requests();
    const firstAfterSummary = reqs.findIndex((r, i) => i > 0 && reqs[i - 1]!.kind === "summary" && r.kind === "chat");
    expect(firstAfterSummary).toBeGreaterThan(0);
    for (const r of reqs.slice(firstAfterSummary).filter((q) => q.kind === "chat")) {
      expect(startsWith(r, RESTORE_HEADER_POST_COMPACTION)).toHaveLength(1);
    }
    expect(startsWith(reqs[firstAfterSummary]!, RESTORE_HEADER_POST_COMPACTION)[0]).toContain(cps[0]!.meta.checkpoint_id);
    for (const r of reqs) expect(startsWith(r, RESTORE_HEADER_RESUME)).toHaveLength(0);
  }, 180_000);
});
