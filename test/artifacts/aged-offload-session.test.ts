/**
 * Aged offload through a real pi AgentSession (standalone extension, faux provider, real
 * bash tool on a temp workspace): a mid-size result the agent already consumed reaches
 * the model as handle + bounded preview once `offloadAgeTurns` assistant turns follow
 * it, and stays so (byte-identical) afterwards; the newest rounds, errors and
 * artifact_fetch results are never aged; the session file keeps the original; no
 * planted secret reaches the artifact; the handle reads the original back.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import type { Context } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readArtifact } from "../../src/agents/artifacts/store.js";

const SECRET = "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2";
const TOOLS = ["read", "write", "edit", "bash", "artifact_fetch"];
const HANDLE_RE = /ocm_artifact:v1:sha256:[0-9a-f]{64}/;
const MARKER = "[tool output stored off the prompt:";

/** ~4 KB: under the fresh-stash threshold (8k chars, 200 lines), over the aged one (2k) */
function midLog(tag: string, withSecret = false): string {
  const lines: string[] = [];
  for (let i = 1; i <= 120; i++) lines.push(`${tag} line ${String(i).padStart(3, "0")} fine`);
  lines[59] = `${tag} NEEDLE in the middle: parser state 0x4f2a`;
  if (withSecret) lines[119] = `export GITHUB_TOKEN=${SECRET}`;
  return `${lines.join("\n")}\n`;
}

function bigLog(): string {
  return `${Array.from({ length: 1500 }, (_, i) => `${String(i + 1).padStart(5, "0")} big step ok`).join("\n")}\n`;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/** texts of the tool results of a request, in order */
const toolTexts = (c: Context) => requestTexts({ ...c, messages: c.messages.filter((m) => m.role === "toolResult") });

describe("aged offload in a real AgentSession", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("ages a consumed mid-size result after N turns, keeps the newest, errors and fetches whole", async () => {
    s = await makeStandalone({
      contextWindow: 200_000,
      contextManager: { offload: true, offloadAgeTurns: 2, offloadAgedMinChars: 2_000, offloadAgedPreviewChars: 300 },
      tools: TOOLS,
    });
    writeFileSync(join(s.cwd, "a.log"), midLog("AAA", true));
    writeFileSync(join(s.cwd, "big.log"), bigLog());
    writeFileSync(join(s.cwd, "d.log"), midLog("DDD"));
    writeFileSync(join(s.cwd, "e.log"), midLog("EEE"));
    const seen: Context[] = [];
    s.agent.onChat((c) => {
      seen.push(structuredClone({ messages: c.messages }) as Context);
      if (seen.length === 3) {
        // the big log was stashed fresh: fetch 5k of it (an artifact_fetch result, never aged)
        const h = HANDLE_RE.exec(toolTexts(c)[1] ?? "")?.[0];
        s.agent.queue(
          reply.tools(["artifact_fetch", { handle: h, maxChars: 5_000 }]),
          reply.tools(["bash", { command: "cat d.log; exit 3" }]),
          reply.tools(["bash", { command: "cat e.log" }]),
          reply.text("done"),
        );
      }
    });
    s.agent.queue(reply.tools(["bash", { command: "cat a.log" }]), reply.tools(["bash", { command: "cat big.log" }]));
    const session = await s.open();
    await s.prompt(session, "look at the logs");
    expect(s.errors).toEqual([]);
    expect(seen).toHaveLength(6);

    // requests 2 and 3: A is in the newest two rounds, whole
    expect(toolTexts(seen[1]!)[0]).toContain("AAA NEEDLE in the middle");
    expect(toolTexts(seen[2]!)[0]).toContain("AAA NEEDLE in the middle");
    // request 4: two assistant turns follow A: handle + bounded preview, the middle is gone
    const agedA = toolTexts(seen[3]!)[0]!;
    expect(agedA.startsWith(MARKER)).toBe(true);
    expect(agedA).toMatch(HANDLE_RE);
    expect(agedA).not.toContain("NEEDLE");
    expect(agedA).toContain("AAA line 001 fine");
    expect(agedA.length).toBeLessThan(800);
    // the tail preview is cut from the redacted text: the planted secret is not in it
    expect(agedA).not.toContain(SECRET);
    // sticky and byte-identical in every later request (stable prompt prefix)
    expect(toolTexts(seen[4]!)[0]).toBe(agedA);
    expect(toolTexts(seen[5]!)[0]).toBe(agedA);

    const last = toolTexts(seen[5]!);
    expect(last).toHaveLength(5);
    // the artifact_fetch result (C) is never aged, though it is old and 5k long
    expect(last[2]!.startsWith(MARKER)).toBe(false);
    expect(last[2]!.length).toBeGreaterThan(4_000);
    // the error result (D) is never aged
    expect(last[3]).toContain("DDD NEEDLE in the middle");
    expect(last[3]).toMatch(/exit|code 3/i);
    // the newest result (E) is whole
    expect(last[4]).toContain("EEE NEEDLE in the middle");

    // the handle reads the original back (redacted), and no artifact holds the secret
    const handle = HANDLE_RE.exec(agedA)![0];
    const back = readArtifact(s.stateDir, handle);
    expect(back).toContain("AAA NEEDLE in the middle: parser state 0x4f2a");
    expect(back).toContain("AAA line 119 fine");
    expect(back).not.toContain(SECRET);
    for (const f of files(join(s.stateDir, "context", "artifacts"))) expect(readFileSync(f, "utf8")).not.toContain(SECRET);

    // non-destructive: the session keeps the original result
    const persisted = session.sessionManager.getEntries().filter((e) => e.type === "message" && e.message.role === "toolResult");
    expect(JSON.stringify(persisted[0])).toContain("AAA NEEDLE in the middle");

    // continuity: the compaction checkpoint names the aged output's handle (restore block, gc)
    await session.compact();
    const cp = readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`).at(-1)!;
    expect(cp.artifacts?.map((a) => a.handle)).toContain(handle);
  });

  it("offloadAgeTurns: 0 never ages", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true, offloadAgeTurns: 0 }, tools: TOOLS });
    writeFileSync(join(s.cwd, "a.log"), midLog("AAA"));
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(
      reply.tools(["bash", { command: "cat a.log" }]),
      reply.tools(["bash", { command: "echo 1" }]),
      reply.tools(["bash", { command: "echo 2" }]),
      reply.tools(["bash", { command: "echo 3" }]),
      reply.text("done"),
    );
    const session = await s.open();
    await s.prompt(session, "go");
    expect(toolTexts(seen.at(-1)!)[0]).toContain("AAA NEEDLE in the middle");
  });
});
