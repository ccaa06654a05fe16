/**
 * "checkpoint" compaction returns before its checkpoint is durable (issue 25, latency): on a
 * real AgentSession, with the compaction checkpoint's publish (the exclusive link of the
 * fsync'd temp file) held by the file-system layer, pi's compaction completes anyway, and in
 * that window (a crash there):
 *  - the summary is in pi's session file, naming the compacted work;
 *  - the captured state on disk is not reset (it is reset only after the checkpoint is
 *    durable), so nothing captured is lost for the next checkpoint;
 *  - no half-written checkpoint is visible (the write is atomic).
 * Then a prompt started during the held write waits for it (every state change awaits the
 * engine's pending write), and what it captures is not reset away: the next checkpoint has it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import { COMPACTION_SUMMARY_HEADER } from "../../src/agents/inject/markers.js";
import { setContextManagerRuntime } from "../../src/agents/pi-extensions/context-manager-session.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { checkpointSessionDir, stateSessionDir } from "../../src/infra/session-dir.js";
import { filler, reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds the publish of compaction checkpoints while `held` is set. */
function gatedFs() {
  const gate = { held: false, waiting: 0, release: () => {} };
  let open: Promise<void> = Promise.resolve();
  const fs: FsOps = {
    ...nodeFsOps,
    async link(existing, target) {
      const isCompaction = /cp_\d+\.yaml$/.test(target) && /trigger: "?compaction\b/.test(readFileSync(existing, "utf8"));
      if (isCompaction && gate.held) {
        gate.waiting++;
        await open;
      }
      return nodeFsOps.link(existing, target);
    },
  };
  return {
    fs,
    gate,
    hold() {
      gate.held = true;
      open = new Promise<void>((r) => (gate.release = r));
    },
    release() {
      gate.held = false;
      gate.release();
    },
  };
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true }).map(String);
  } catch {
    return [];
  }
}

describe("checkpoint compaction before its checkpoint is durable", () => {
  let s: Standalone;
  let session: AgentSession;
  let sessionManager: SessionManager;
  const g = gatedFs();

  beforeAll(async () => {
    s = await makeStandalone({ contextManager: { compaction: "checkpoint", compactionSummaryMaxTokens: 1500, checkpointThreshold: 0.99 } });
    s.agent.onSummarize(() => {
      throw new Error("a model call was made for compaction");
    });
    sessionManager = SessionManager.create(s.cwd, join(s.root, "sessions"));
    setContextManagerRuntime(sessionManager, {
      sessionKey: `pi:${s.cwd}`,
      contextWindowTokens: 0,
      stateDir: s.stateDir,
      config: s.config,
      agentId: "pi",
      channel: "pi",
      hostInjectsRestore: false,
      fs: g.fs,
    });
    session = await s.open(sessionManager);
  });
  afterAll(async () => {
    g.release();
    session?.dispose();
    await s?.cleanup();
  });

  it("the summary is in pi's session file and the capture still on disk while the checkpoint is held; a prompt in between waits and keeps its capture", async () => {
    const key = `pi:${s.cwd}`;
    const compactions = () => session.sessionManager.getEntries().filter((e) => e.type === "compaction").length;
    g.hold();
    let turn = 0;
    for (; turn < 80 && compactions() === 0; turn++) {
      const file = `src/held${turn}.ts`;
      s.agent.queue(
        reply.tools(["write", { path: file, content: `export const held${turn} = ${turn};\n` }]),
        reply.text(filler(`Wrote \`held${turn}\` in ${file}.`, 1800)),
      );
      await s.prompt(session, `Request ${turn}: add held${turn} to ${file}. ${filler("context", 1200)}`);
    }
    expect(compactions()).toBe(1);
    expect(s.errors).toEqual([]);
    // the compaction completed; its checkpoint's write goes on in the background up to the held publish
    for (let i = 0; i < 2000 && g.gate.waiting === 0; i++) await sleep(10);
    expect(g.gate.waiting).toBe(1);
    const cpDir = checkpointSessionDir(s.stateDir, key);
    const published = filesUnder(cpDir).filter((f) => /cp_\d+\.yaml$/.test(f));
    expect(published.every((f) => !/trigger: "?compaction\b/.test(readFileSync(join(cpDir, f), "utf8")))).toBe(true);

    // a crash here: pi's session file holds the summary with the compacted work
    const sessionFile = session.sessionManager.getSessionFile()!;
    const entries = readFileSync(sessionFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { type: string; summary?: string });
    const summary = entries.find((e) => e.type === "compaction")?.summary ?? "";
    expect(summary.startsWith(COMPACTION_SUMMARY_HEADER)).toBe(true);
    expect(summary).toContain("held0.ts");
    // ... and the state files still hold the capture: `resources` (what a checkpoint resets) is
    // as the compaction saw it, and the work ledger names the compacted work
    const stateDir = stateSessionDir(s.stateDir, key);
    const read = (name: string) => {
      try {
        return readFileSync(join(stateDir, `${name}.json`), "utf8");
      } catch {
        return "";
      }
    };
    // (no auto checkpoint at 99%: every file changed so far is in `resources` until a checkpoint is durable)
    expect(read("resources")).toContain("held0.ts");
    expect(read("work")).toContain("held0.ts");

    // a prompt during the held write: its capture waits for the write, then is not reset away
    s.agent.queue(reply.tools(["write", { path: "src/after.ts", content: "export const after = 1;\n" }]), reply.text("Wrote `after` in src/after.ts."));
    const requestsBefore = s.agent.chatRequests.length;
    const during = s.prompt(session, "Add after to src/after.ts.");
    await sleep(50);
    // its context handler waits for the held write: no request can have gone out
    expect(s.agent.chatRequests.length).toBe(requestsBefore);
    g.release();
    await during;
    expect(s.agent.chatRequests.length).toBeGreaterThan(requestsBefore);
    const compactionCp = filesUnder(cpDir)
      .filter((f) => /cp_\d+\.yaml$/.test(f))
      .map((f) => readFileSync(join(cpDir, f), "utf8"))
      .find((t) => /trigger: "?compaction\b/.test(t));
    expect(compactionCp).toContain("held0.ts");
    expect(compactionCp).not.toContain("src/after.ts");
    // reset once the checkpoint was durable: what it holds left the state, the later capture stayed
    expect(read("resources")).not.toContain("held0.ts");
    expect(read("resources")).toContain("after.ts");
    // the next checkpoint (a manual /compact) has what was captured after the held one
    const manual = await session.compact();
    expect(manual.summary).toContain("after.ts");
    expect(s.agent.summarizerRequests).toHaveLength(0);
  }, TEST_TIMEOUT_MS);
});
