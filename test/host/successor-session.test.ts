/**
 * OpenClaw 2026.9 can rotate the session id during compaction (a successor
 * session). The post-compaction restore must still find the compaction
 * checkpoint the previous id wrote, and still refuse a foreign one.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager, type SessionBeforeCompactEvent } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { onCompactionCompleted } from "../../src/openclaw-core/restore-seams.js";
import { buildContextManagerExtensionFactories } from "../../src/agents/pi-extensions/context-manager.js";
import { writeCompactionCheckpoint } from "../../src/agents/pi-extensions/context-manager.js";
import { writeServerCompactionCheckpoint } from "../../src/agents/pi-extensions/context-manager.js";

const KEY = "agent:main:telegram:direct:7";

function session(stateDir: string) {
  const sm = SessionManager.inMemory("/work");
  const at = Date.now();
  sm.appendMessage({ role: "user", content: "Fix the parser in src/parse.ts", timestamp: at });
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Done: the parser handles empty input." }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: { input: 900, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 920, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: at + 1,
  } as never);
  const factories = buildContextManagerExtensionFactories({ cfg: {}, sessionManager: sm, sessionKey: KEY, contextWindowTokens: 10_000, stateDir, agentId: "main" });
  expect(factories).toHaveLength(1);
  return sm;
}

describe("successor session ids and server-side compaction", () => {
  it("the restore accepts the previous id's compaction checkpoint after a rotation, and no other", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-succ-"));
    const sm = session(stateDir);
    const since = Date.now();
    const event = {
      type: "session_before_compact",
      branchEntries: sm.getBranch(),
      preparation: { tokensBefore: 900, isSplitTurn: false, turnPrefixMessages: [], messagesToSummarize: [], fileOps: { read: new Set(), written: new Set(), edited: new Set() } },
    } as unknown as SessionBeforeCompactEvent;
    const cp = await writeCompactionCheckpoint(event, { sessionManager: sm, cwd: "/work", getContextUsage: () => undefined } as never);
    expect(cp?.meta.trigger).toBe("compaction");
    const oldId = sm.getSessionId();
    const queued: string[] = [];
    const enqueue = (text: string) => void queued.push(text);

    const withoutPrevious = await onCompactionCompleted({ sessionKey: KEY, sessionId: "successor-1", since, stateDir, enqueue });
    expect(withoutPrevious).toBeNull();
    const foreign = await onCompactionCompleted({ sessionKey: KEY, sessionId: "successor-1", previousSessionId: "someone-else", since, stateDir, enqueue });
    expect(foreign).toBeNull();
    const block = await onCompactionCompleted({ sessionKey: KEY, sessionId: "successor-1", previousSessionId: oldId, since, stateDir, enqueue });
    expect(block?.checkpoint.meta.session_id).toBe(oldId);
    expect(queued).toEqual([block!.text]);
    expect(block!.text).toContain("[Post-compaction checkpoint restore]");
  });

  it("the server-side compaction path writes a compaction checkpoint from the session's branch", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-server-"));
    const sm = session(stateDir);
    const cp = await writeServerCompactionCheckpoint({ sessionManager: sm, cwd: "/work", tokensBefore: 8_100 });
    expect(cp?.meta.trigger).toBe("compaction");
    expect(cp?.meta.token_usage.input_tokens).toBe(8_100);
    expect(cp?.meta.compaction_count).toBe(1);
    expect(cp?.working.interrupted).toBe(false);
    expect(JSON.stringify(cp)).toContain("parser");
  });

  it("never throws on a session manager it cannot use", async () => {
    await expect(writeServerCompactionCheckpoint({ sessionManager: {} as never, cwd: "/", tokensBefore: 1 })).resolves.toBeNull();
  });
});
