/**
 * Appends that never load the archive (issue 24): dedup against the newest records, sequence
 * numbers that continue the file's, eviction handed to the archive worker when the file is over
 * maxSegments; and one refs line per artifact handle.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionArchive } from "../../src/agents/archive/archive.js";
import { appendToTail } from "../../src/agents/archive/store.js";
import type { SegmentDraft } from "../../src/agents/archive/segments.js";
import { archiveWorker } from "../../src/agents/archive/worker/archive-client.js";
import { refsPath, stashArtifact } from "../../src/agents/artifacts/store.js";

const drafts = (n: number, tag: string): SegmentDraft[] => Array.from({ length: n }, (_, i) => ({ role: "assistant", t: 1_000 + i, text: `${tag} reply ${i} about parseConfig and the ledger` }));
const origin = { session: "s1", compaction: 1 };
const limits = { maxSegments: 500, retentionDays: 30 };

describe("appending to an archive's tail", () => {
  it("dedups against the newest records and continues the file's sequence", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-tail-"));
    const key = "agent:main:tail:1";
    const first = await appendToTail(stateDir, key, drafts(40, "a"), origin, limits);
    expect(first).toMatchObject({ added: 40, duplicates: 0, overLimit: false });
    // a compaction re-archiving what its turns archived, and one new message
    const again = await appendToTail(stateDir, key, [...drafts(40, "a"), ...drafts(1, "b")], origin, limits);
    expect(again).toMatchObject({ added: 1, duplicates: 40 });
    const archive = new SessionArchive(stateDir, key, limits);
    await archive.load();
    expect(archive.size).toBe(41);
    const last = JSON.parse(readFileSync(archive.file, "utf8").trim().split("\n").at(-1)!) as { seq: number; text: string };
    expect(last).toMatchObject({ seq: 41, text: expect.stringContaining("b reply 0") });
  });

  it("an append in another process's archive: written after what that process wrote, read once", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-tail-"));
    const key = "agent:main:tail:2";
    const other = new SessionArchive(stateDir, key, limits);
    await other.append(drafts(30, "x"), origin);
    const r = await appendToTail(stateDir, key, [...drafts(30, "x").slice(-5), ...drafts(3, "y")], origin, limits);
    expect(r).toMatchObject({ added: 3, duplicates: 5 });
    await other.refresh();
    expect(other.size).toBe(33);
    const seqs = readFileSync(other.file, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual(Array.from({ length: 33 }, (_, i) => i + 1));
  });

  it("over maxSegments: the worker evicts the oldest, so the file stays within its limit", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-tail-"));
    const key = "agent:main:tail:3";
    let over = false;
    for (let k = 0; k < 6; k++) over = (await appendToTail(stateDir, key, drafts(100, `t${k}`), origin, limits)).overLimit;
    expect(over).toBe(true);
    await archiveWorker().call("compact", { stateDir, sessionKey: key, limits });
    const archive = new SessionArchive(stateDir, key, limits);
    await archive.load();
    expect(archive.size).toBeLessThanOrEqual(limits.maxSegments);
    // the newest stay
    expect(archive.search("t5 reply 99", { limit: 1 })[0]!.record.text).toContain("t5 reply 99");
    // and the next append continues from the rewritten file
    expect((await appendToTail(stateDir, key, drafts(1, "z"), origin, limits)).overLimit).toBe(false);
  });
});

describe("the refs log", () => {
  it("one line per handle a key references, however often it is stashed again", () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-refs-"));
    const key = "agent:main:refs:1";
    for (let i = 0; i < 5; i++) stashArtifact(stateDir, { text: "a long tool output\n".repeat(200), sessionKey: key, tool: "read" });
    stashArtifact(stateDir, { text: "another output\n".repeat(200), sessionKey: key, tool: "read" });
    const lines = readFileSync(refsPath(stateDir, key), "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
  });
});
