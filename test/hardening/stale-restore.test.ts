/**
 * A restore block never claims to describe a compaction it does not cover: when the
 * compaction checkpoint cannot be written (full or read-only disk), the previous checkpoint,
 * however recent, is not sent as this compaction's block; nothing is sent and it is logged.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { onCompactionCompleted } from "../../src/openclaw-core/restore-seams.js";
import { filler, makeHost, reply } from "../helpers/host.js";
import { getContextManagerRuntime } from "../../src/agents/pi-extensions/context-manager-session.js";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { assistantMsg, compactEvent, faultyFs, makeEngine, rmDir, tempDir, userMsg } from "./helpers.js";

const KEY = "agent:main:test:direct:stale";

describe("stale restore after a failed compaction checkpoint", () => {
  for (const fault of ["ENOSPC", "EROFS", "EACCES"] as const) {
    it(`${fault}: the previous checkpoint (written milliseconds earlier) is not sent; nothing is, and it is logged`, async () => {
      const stateDir = tempDir("cm-stale-");
      try {
        const fs = faultyFs();
        const { engine } = makeEngine({ stateDir, sessionKey: KEY, fs });
        const messages: AgentMessage[] = [userMsg("first task"), assistantMsg("done")];
        await engine.onContext(messages, undefined);
        const since1 = Date.now();
        const first = await engine.onBeforeCompact(compactEvent(5000, { messages }), "/w");
        expect(first).not.toBeNull();
        const sent: string[] = [];
        const warnings: string[] = [];
        const logger = { warn: (m: string) => warnings.push(m) };
        const ok = await onCompactionCompleted({ stateDir, sessionKey: KEY, sessionId: "sess-1", since: since1, enqueue: (t) => sent.push(t), logger });
        expect(ok?.checkpoint.meta.checkpoint_id).toBe(first!.meta.checkpoint_id);

        // the next compaction starts at once, on a disk that now fails
        messages.push(userMsg("second task"), assistantMsg("working"));
        await engine.onContext(messages, undefined);
        fs.fault = fault;
        const since2 = Date.now();
        expect(await engine.onBeforeCompact(compactEvent(6000, { messages }), "/w")).toBeNull();
        fs.fault = null; // the disk is readable again when the host asks for the block
        const stale = await onCompactionCompleted({ stateDir, sessionKey: KEY, sessionId: "sess-1", since: since2, enqueue: (t) => sent.push(t), logger });
        expect(stale).toBeNull();
        expect(sent).toHaveLength(1); // only the first compaction's block
        expect(warnings.some((w) => /no restore block after this compaction: its checkpoint could not be written/.test(w))).toBe(true);

        // a later compaction that writes its checkpoint restores again
        const since3 = Date.now();
        const third = await engine.onBeforeCompact(compactEvent(7000, { messages }), "/w");
        const fresh = await onCompactionCompleted({ stateDir, sessionKey: KEY, sessionId: "sess-1", since: since3, enqueue: (t) => sent.push(t), logger });
        expect(fresh?.checkpoint.meta.checkpoint_id).toBe(third!.meta.checkpoint_id);
      } finally {
        rmDir(stateDir);
      }
    });
  }

  it("real runner: /compact on a full disk right after a good /compact sends no block and logs why", async () => {
    const ffs = faultyFs();
    const injectFs: ExtensionFactory = (pi) => {
      const set = (_e: unknown, ctx: { sessionManager: object }) => {
        const rt = getContextManagerRuntime(ctx.sessionManager);
        if (rt) rt.fs = ffs;
      };
      pi.on("session_start", set);
      pi.on("context", set);
    };
    const host = await makeHost({ contextWindow: 16_000, extraExtensionFactories: [injectFs] });
    try {
      const key = "agent:main:telegram:direct:stale";
      host.agent.queue(reply.text(filler("answer", 3000)));
      await host.runner.handleInbound(key, filler("question", 2000));
      const c1 = await host.runner.handleInbound(key, "/compact");
      expect(c1.compactions[0]?.restore).not.toBeNull();
      host.agent.queue(reply.text(filler("second answer", 3000)));
      await host.runner.handleInbound(key, filler("second question", 2000));
      ffs.fault = "ENOSPC";
      const c2 = await host.runner.handleInbound(key, "/compact");
      ffs.fault = null;
      expect(c2.compactions.map((c) => c.trigger)).toEqual(["manual"]);
      expect(c2.compactions[0]!.restore).toBeNull();
      expect(host.warnings.some((w) => w.includes("no restore block after this compaction"))).toBe(true);
    } finally {
      host.cleanup();
    }
  });
});
