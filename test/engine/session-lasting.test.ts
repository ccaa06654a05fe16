/**
 * A Session is weighed and evicted under cacheMemoryMiB, but what it holds that is not a cache
 * (a compaction's outcome the restore reads after it, the stashed outputs a checkpoint names,
 * work in flight) must survive eviction: the registry empties such a Session's caches instead.
 */
import { afterEach, describe, expect, it } from "vitest";
import { cacheBudgetBytes, MAX_SESSIONS_KEPT, sessionAt, sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { compactionOutcomeSince, recordCompactionOutcome } from "../../src/agents/engine/compaction.js";
import { addStash } from "../../src/agents/artifacts/session-stashes.js";
import { DEFAULT_CONTEXT_MANAGER_CONFIG } from "../../src/agents/config/context-manager-config.js";

const dir = "/tmp/session-lasting-test";

afterEach(() => sessionRegistry().setBudget(cacheBudgetBytes(DEFAULT_CONTEXT_MANAGER_CONFIG, "sessions")));

describe("Session lasting state", () => {
  it("keeps a compaction outcome and stashes when the registry evicts, and drops the caches", () => {
    recordCompactionOutcome(dir, "keep", "s1", "ckpt-1", 1_000);
    addStash(sessionAt(dir, "keep").lasting.stashes, { handle: "h1", tool: "read", input: { path: "a.ts" }, bytes: 10 });
    const kept = sessionAt(dir, "keep");
    expect(sessionAt(dir, "joined").ourTools("s1").decideSearchJoin(true)).toBe(true);
    kept.breakdown.phrase = { text: "tool results 58%", tokens: 1 };
    sessionAt(dir, "plain").breakdown.phrase = { text: "x", tokens: 1 };
    sessionRegistry().setBudget(cacheBudgetBytes({ cacheMemoryMiB: 0 }, "sessions")); // everything but the newest must go
    sessionAt(dir, "newest");

    expect(sessionRegistry().peek(`${dir}\u0000plain`)).toBeUndefined();
    expect(sessionRegistry().peek(`${dir}\u0000keep`)).toBe(kept);
    expect(kept.breakdown.phrase).toBeNull();
    expect(kept.lasting.stashes.map((s) => s.handle)).toEqual(["h1"]);
    expect(compactionOutcomeSince(dir, "keep", "s1", 999)?.checkpointId).toBe("ckpt-1");
    expect(compactionOutcomeSince(dir, "keep", "s1", 1_001)).toBeNull();
    // a joined context_search stays joined: the tool list does not change again
    expect(sessionRegistry().peek(`${dir}\u0000joined`)).toBeDefined();
    expect(sessionAt(dir, "joined").ourTools("s1").decideSearchJoin(true)).toBe(false);
  });

  it("stays bounded: past MAX_SESSIONS_KEPT even Sessions with lasting state are evicted, the least recent first", () => {
    sessionRegistry().setBudget(cacheBudgetBytes({ cacheMemoryMiB: 0 }, "sessions"));
    const n = MAX_SESSIONS_KEPT + 50;
    for (let i = 0; i < n; i++) recordCompactionOutcome(dir, `many-${i}`, "s1", `ckpt-${i}`, 1_000);
    sessionAt(dir, "newest-of-many");
    expect([...sessionRegistry().values()].length).toBeLessThanOrEqual(MAX_SESSIONS_KEPT + 1);
    expect(sessionRegistry().peek(`${dir}\u0000many-0`)).toBeUndefined();
    expect(compactionOutcomeSince(dir, `many-${n - 1}`, "s1", 999)?.checkpointId).toBe(`ckpt-${n - 1}`);
  });
});
