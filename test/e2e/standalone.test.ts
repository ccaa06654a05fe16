/**
 * Standalone Pi mode (no OpenClaw host): the extension alone, with pi's default
 * compaction. cp_001 at 80%, the compaction checkpoint from the extension's own
 * session_before_compact (pi's summary still runs), the restore block via
 * pi.sendMessage(nextTurn), and the resume block on the first request of a new
 * session on the same workspace (and only there).
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "@mariozechner/pi-ai";
import { fauxAssistantMessage } from "@mariozechner/pi-ai";
import { type Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { RESTORE_HEADER_POST_COMPACTION, RESTORE_HEADER_RESUME } from "../../src/agents/inject/markers.js";
import { RESTORE_CUSTOM_TYPE } from "../../src/agents/pi-extensions/context-manager.js";
import { filler, reply, requestTexts } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

function checkpointsOnDisk(s: Standalone): Checkpoint[] {
  return readCheckpointsOnDisk(s.stateDir, `pi:${resolve(s.cwd)}`);
}

const countWith = (req: Context, header: string) => requestTexts(req).filter((t) => t.startsWith(header)).length;

describe("standalone pi mode with pi's default compaction", () => {
  let s: Standalone;
  let cpAtSummarize: Checkpoint | undefined;
  let firstSessionId = "";

  beforeAll(async () => {
    s = await makeStandalone();
    s.agent.onSummarize(() => {
      cpAtSummarize = checkpointsOnDisk(s).at(-1);
      return fauxAssistantMessage("## Goal\nPi default summary.\n");
    });
  });
  afterAll(() => s?.cleanup());

  it("writes cp_001 past 80%, then the compaction checkpoint before pi's own summary, then delivers the restore block", async () => {
    const session = await s.open();
    firstSessionId = session.sessionId;
    s.agent.queue(reply.tools(["write", { path: "todo.md", content: "- fix\n" }]), reply.text("Wrote todo.md."));
    await s.prompt(session, "Create todo.md");
    for (let i = 0; i < 30 && s.compactions.length === 0; i++) {
      s.agent.queue(reply.text(filler(`Answer ${i}`, 2400)));
      await s.prompt(session, filler(`Question ${i}`, 1600));
    }
    expect(s.compactions).toEqual([{ reason: "threshold", ok: true }]);
    expect(s.errors).toEqual([]);

    const cps = checkpointsOnDisk(s);
    expect(cps[0]!.meta.checkpoint_id).toBe("cp_001");
    expect(cps[0]!.meta.trigger).toBe("auto-80pct");
    expect(cps[0]!.meta.session_key).toBe(`pi:${resolve(s.cwd)}`);
    expect(cps[0]!.meta.session_id).toBe(firstSessionId);
    expect(cps[0]!.meta.agent_id).toBe("pi");
    // written by the extension's own session_before_compact, before pi's summarizer ran
    expect(s.agent.summarizerRequests).toHaveLength(1);
    expect(cpAtSummarize?.meta.trigger).toBe("compaction");
    expect(cpAtSummarize?.meta.compaction_count).toBe(1);
    expect(cpAtSummarize?.resources.files_modified).toContain("todo.md");
    // pi's default summary (not a fallback) is what the session kept
    const entry = session.sessionManager.getEntries().find((e) => e.type === "compaction");
    expect(entry && "summary" in entry ? entry.summary : "").toContain("Pi default summary.");

    const before = s.agent.chatRequests.length;
    s.agent.queue(reply.text("Continuing."));
    await s.prompt(session, "Where were we?");
    const req = s.agent.chatRequests[before]!;
    const texts = requestTexts(req);
    const at = texts.findIndex((t) => t.startsWith(RESTORE_HEADER_POST_COMPACTION));
    expect(at).toBeGreaterThan(0);
    expect(texts[at]).toContain("todo.md");
    // attached right after the user's message of that turn
    expect(texts[at - 1]).toBe("Where were we?");
    // delivered once: the next turn does not get another copy
    s.agent.queue(reply.text("Next."));
    await s.prompt(session, "And then?");
    expect(countWith(s.agent.chatRequests.at(-1)!, RESTORE_HEADER_POST_COMPACTION)).toBe(1);
    const custom = session.sessionManager.getEntries().filter((e) => e.type === "custom_message");
    expect(custom.map((e) => ("customType" in e ? e.customType : ""))).toEqual([RESTORE_CUSTOM_TYPE]);
    session.dispose();
  });

  it("a new session on the same workspace gets the resume block on its first request only", async () => {
    const session = await s.open();
    expect(session.sessionId).not.toBe(firstSessionId);
    const before = s.agent.chatRequests.length;
    s.agent.queue(reply.text("Resuming."));
    await s.prompt(session, "Let's continue");
    const first = s.agent.chatRequests[before]!;
    expect(countWith(first, RESTORE_HEADER_RESUME)).toBe(1);
    const texts = requestTexts(first);
    expect(texts.find((t) => t.startsWith(RESTORE_HEADER_RESUME))).toContain("todo.md");
    expect(countWith(first, RESTORE_HEADER_POST_COMPACTION)).toBe(0);

    s.agent.queue(reply.text("Next."));
    await s.prompt(session, "And then?");
    const second = s.agent.chatRequests.at(-1)!;
    // only the copy already in the history from the first turn; none added
    expect(countWith(second, RESTORE_HEADER_RESUME)).toBe(1);
    expect(requestTexts(second).filter((t) => !t.startsWith("[Context: ")).at(-1)).toBe("And then?");
    expect(s.errors).toEqual([]);
    session.dispose();
  });
});
