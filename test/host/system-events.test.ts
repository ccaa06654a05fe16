/** The system-event stand-in keeps OpenClaw 2026.9's owner-scoped queue semantics the restore seams depend on. */
import { beforeEach, describe, expect, it } from "vitest";
import {
  drainSystemEventEntries,
  enqueueSystemEvent,
  peekSystemEvents,
  prependSystemEvents,
  resetSystemEventsForTest,
  resolveSystemEventQueueKey,
  withSystemEventOwner,
} from "../../src/auto-reply/system-events.js";

describe("system events (openclaw 2026.9 semantics)", () => {
  beforeEach(() => resetSystemEventsForTest());

  it("rejects a bare session key: the restore block must go through withSystemEventOwner", () => {
    expect(() => enqueueSystemEvent("block", { sessionKey: "main" })).toThrow(/agent-qualified/);
    expect(enqueueSystemEvent("block", withSystemEventOwner({ sessionKey: "main" }, "ops"))).toBe(true);
    expect(peekSystemEvents("agent:ops:main")).toEqual(["block"]);
  });

  it("scopes the queue to the key's owner and refuses a foreign owner", () => {
    expect(resolveSystemEventQueueKey("agent:Main:telegram:direct:1")).toBe("agent:main:telegram:direct:1");
    expect(resolveSystemEventQueueKey("agent:main:x", "main")).toBe("agent:main:x");
    expect(() => resolveSystemEventQueueKey("agent:main:x", "other")).toThrow(/owner/);
  });

  it("returns a boolean, drops consecutive duplicates, replaces by contextKey, keeps 20", () => {
    const k = "agent:main:main";
    expect(enqueueSystemEvent("a", { sessionKey: k })).toBe(true);
    expect(enqueueSystemEvent("a", { sessionKey: k })).toBe(false);
    expect(enqueueSystemEvent("  ", { sessionKey: k })).toBe(false);
    enqueueSystemEvent("r1", { sessionKey: k, contextKey: "restore" });
    enqueueSystemEvent("r2", { sessionKey: k, contextKey: "restore", replace: true });
    expect(peekSystemEvents(k)).toEqual(["a", "r2"]);
    for (let i = 0; i < 25; i++) enqueueSystemEvent(`e${i}`, { sessionKey: k });
    expect(peekSystemEvents(k)).toHaveLength(20);
  });

  it("drained events carry their enqueue time and the System: lines show it once per event", () => {
    const k = "agent:main:main";
    const before = Date.now();
    enqueueSystemEvent("[Header]\nline two", { sessionKey: k });
    const entries = drainSystemEventEntries(k);
    expect(entries[0]!.ts).toBeGreaterThanOrEqual(before);
    expect(drainSystemEventEntries(k)).toEqual([]);
    const text = prependSystemEvents(entries, "hello");
    expect(text).toMatch(/^System: \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] \[Header\]\nSystem: line two\n\nhello$/);
  });
});
