/**
 * A worker that dies under a request takes only itself down: an archive too large for the
 * worker's heap fails that search (sent once more to a fresh worker), is never re-run on the
 * main thread, and the next request gets a fresh worker that answers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendToTail } from "../../src/agents/archive/store.js";
import type { SegmentDraft } from "../../src/agents/archive/segments.js";
import { archiveCacheStats } from "../../src/agents/archive/worker/archive-worker.js";
import { ArchiveWorkerClient, ArchiveWorkerDiedError } from "../../src/agents/archive/worker/archive-client.js";

const limits = { maxSegments: 100_000, retentionDays: 30 };
const origin = { session: "s1", compaction: 1 };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** `n` segments of distinct words (each a term of the index) of about `chars` characters. */
function drafts(n: number, chars: number, from: number): SegmentDraft[] {
  return Array.from({ length: n }, (_, i) => {
    const k = from + i;
    const words: string[] = [];
    for (let w = 0, len = 0; len < chars; w++) {
      const word = `w${k.toString(36)}x${w.toString(36)}q${((k * 7919 + w * 104729) % 1_000_003).toString(36)}`;
      words.push(word);
      len += word.length + 1;
    }
    return { role: "assistant", t: 1_000 + k, text: words.join(" ") };
  });
}

describe("the archive worker dies under a request", () => {
  it("the request fails after one retry in a fresh worker, never in this thread; the next one is answered", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-wdeath-"));
    dirs.push(stateDir);
    const big = "agent:main:big";
    for (let b = 0; b < 6; b++) await appendToTail(stateDir, big, drafts(500, 3000, b * 500), origin, limits);
    const small = "agent:main:small";
    await appendToTail(stateDir, small, drafts(20, 200, 0), origin, limits);

    const client = new ArchiveWorkerClient({ heapMiB: 32 });
    try {
      const loadedBefore = archiveCacheStats();
      const failed = await client.call("search", { stateDir, sessionKey: big, limits, query: "w1x1", limit: 3 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failed).toBeInstanceOf(ArchiveWorkerDiedError);
      expect(client.deaths).toBe(2);
      // nothing of it was loaded on this thread
      expect(archiveCacheStats()).toEqual(loadedBefore);
      expect(client.mode).not.toBe("in-thread");
      // a fresh worker answers the next request
      const reply = await client.call("search", { stateDir, sessionKey: small, limits, query: drafts(1, 200, 3)[0]!.text.split(" ")[0]!, limit: 3 });
      expect(reply.ready).toBe(true);
      expect(reply.hits.length).toBeGreaterThan(0);
      expect(client.mode).toBe("worker");
    } finally {
      await client.stop();
    }
  });

  it("a worker that cannot start (a module it cannot load) never read the request: it is answered on this thread", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-wstart-"));
    dirs.push(stateDir);
    const key = "agent:main:nostart";
    const first = drafts(20, 200, 0);
    await appendToTail(stateDir, key, first, origin, limits);
    const client = new ArchiveWorkerClient({ evalSource: 'throw new Error("Cannot find module archive-worker.ts")' });
    try {
      const reply = await client.call("search", { stateDir, sessionKey: key, limits, query: first[3]!.text.split(" ")[0]!, limit: 3 });
      expect(reply.hits.length).toBeGreaterThan(0);
      expect(client.mode).toBe("in-thread");
      expect(client.deaths).toBe(0);
    } finally {
      await client.stop();
    }
  });
});
