/**
 * Artifact gc runs by itself after a checkpoint write in a real AgentSession (offload on):
 * an old orphan artifact (no checkpoint, no session names it) is removed, the session's own
 * stashed output is kept, and a second write within the hour does not gc again.
 */
import { existsSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { blobPath, stashArtifact } from "../../src/agents/artifacts/store.js";
import { resetAutoGcForTest, scheduleArtifactGc } from "../../src/agents/artifacts/gc.js";
import { CHILD_TIMEOUT_MS } from "../helpers/timeouts.js";

describe("automatic artifact gc", () => {
  let s: Standalone;
  beforeEach(() => resetAutoGcForTest());
  afterEach(() => s?.cleanup());

  it("a compaction checkpoint write removes old orphans and keeps the live session's artifacts", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true }, tools: ["read", "write", "edit", "bash", "artifact_fetch"] });
    const orphan = stashArtifact(s.stateDir, { text: "orphan line\n".repeat(400) }).receipt.sha256;
    const dayAgo = new Date(Date.now() - 86_400_000);
    utimesSync(blobPath(s.stateDir, orphan), dayAgo, dayAgo);
    writeFileSync(join(s.cwd, "big.log"), Array.from({ length: 1500 }, (_, i) => `line ${i} of the build`).join("\n"));
    s.agent.queue(reply.tools(["bash", { command: "cat big.log" }]), reply.text("ok"));
    const session = await s.open();
    await s.prompt(session, "read the log");
    const own = session.sessionManager.getEntries().map((e) => JSON.stringify(e)).join("").match(/ocm_artifact:v1:sha256:([0-9a-f]{64})/)?.[1];
    expect(own).toBeDefined();
    expect(existsSync(blobPath(s.stateDir, orphan))).toBe(true);

    await session.compact();
    await vi.waitFor(() => expect(existsSync(blobPath(s.stateDir, orphan))).toBe(false), { timeout: CHILD_TIMEOUT_MS });
    expect(existsSync(blobPath(s.stateDir, own!))).toBe(true);
    // throttled: within the hour a second schedule does nothing
    expect(scheduleArtifactGc(s.stateDir)).toBeNull();
  });
});
