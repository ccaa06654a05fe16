/**
 * issue 13: the first `context` call after a restart whose state files are gone (no saved cursor)
 * captures only the messages since this session's latest checkpoint, never the whole history.
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import { emptyCursor, firstIndexAfter, resumeIndex } from "../../src/agents/state/thread-data.js";
import { assistantMsg, compactEvent, makeEngine, removeDirs, tempDir, userMsg } from "../hardening/helpers.js";

const KEY = "agent:main:test:direct:1";
const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

const at = (ts: number): AgentMessage => ({ role: "user", content: `m${ts}`, timestamp: ts }) as AgentMessage;

describe("first call after a restart without a saved cursor", () => {
  it("resumeIndex without a cursor starts after the covered time (minus the clock skew), scanning from the end", () => {
    const msgs = [0, 1, 2, 3, 4].map((i) => at(1_000_000 + i * 100_000));
    expect(resumeIndex(emptyCursor(), msgs)).toBe(0);
    expect(resumeIndex(emptyCursor(), msgs, 1_000_000 + 350_000)).toBe(3);
    expect(firstIndexAfter(msgs, 1_000_000 + 230_000)).toBe(2); // 1,200,000 is within 60 s of it
    expect(firstIndexAfter(msgs, 0)).toBe(0);
    expect(firstIndexAfter(msgs, 10_000_000)).toBe(5);
  });

  it("through the engine: a new engine of the same session captures only what came after the checkpoint", async () => {
    const stateDir = tempDir("cm-restart-");
    dirs.push(stateDir);
    const a = makeEngine({ stateDir, sessionKey: KEY });
    const history: AgentMessage[] = [];
    for (let i = 0; i < 300; i++) history.push(userMsg(`old question ${i}`), assistantMsg([{ type: "text", text: `old answer ${i}` }], { stopReason: "stop" }));
    await a.engine.onContext(history, undefined);
    const cp = await a.engine.onBeforeCompact(compactEvent(50_000, { messages: history }), "/ws");
    expect(cp).not.toBeNull();
    await a.engine.flushNow();
    rmSync(stateSessionDir(stateDir, KEY), { recursive: true, force: true }); // the saved cursor is gone
    // messages after the checkpoint: stamped after its created_at (real time) by more than the skew
    const later = Date.parse(cp!.meta.created_at) + 120_000;
    const fresh = [0, 1, 2].map((i) => ({ ...userMsg(`new question ${i}`), timestamp: later + i * 1000 }) as AgentMessage);
    const b = makeEngine({ stateDir, sessionKey: KEY });
    await b.engine.onContext([...history, ...fresh], undefined);
    const next = await b.engine.onBeforeCompact(compactEvent(60_000, { messages: [] }), "/ws");
    expect(next).not.toBeNull();
    const state = (b.engine as unknown as { state: { snapshot(): { messagesSeen: number } } }).state;
    expect(state.snapshot().messagesSeen).toBe(3);
    expect(next!.thread.summary).toContain("new question 2");
  });
});
