/**
 * issue 25: a checkpoint this process wrote is not parsed again when a new session, a fresh
 * engine or a manual /compact reads it (the parse was most of a cold compaction's time). The
 * memo is keyed by the file's text, so a file changed on disk is parsed, and every reader gets
 * its own copy.
 */
import { promises as fsp } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCheckpointFile, readLatestCheckpoint, writeCheckpoint, type CheckpointStoreOptions } from "../../src/agents/context-checkpoint.js";
import { parsedCheckpointStats } from "../../src/agents/checkpoint/parsed-memo.js";
import { makeDraft, makeTempDir, removeDir } from "./helpers.js";

const KEY = "agent:main:memo:direct:1";
let stateDir: string;
let opts: CheckpointStoreOptions;

beforeEach(async () => {
  stateDir = await makeTempDir("cp-memo-");
  opts = { stateDir };
});
afterEach(async () => {
  await removeDir(stateDir);
});

describe("parsed checkpoint memo", () => {
  it("reads back what this process wrote without parsing it, as an equal copy", async () => {
    const r = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, topic: "memo topic" }));
    if (!r.written) throw new Error("not written");
    const before = parsedCheckpointStats();
    const read = await readLatestCheckpoint(opts, KEY);
    const after = parsedCheckpointStats();
    expect(after.hits).toBe(before.hits + 1);
    expect(read).toEqual(r.checkpoint);
    expect(read).not.toBe(r.checkpoint);
  });

  it("gives every reader its own copy: a change to one is not seen by the next", async () => {
    const r = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, topic: "memo topic" }));
    if (!r.written) throw new Error("not written");
    const first = await readCheckpointFile(r.path, KEY);
    first.working.topic = "changed by a caller";
    first.resources.files_modified.push("injected.ts");
    const second = await readCheckpointFile(r.path, KEY);
    expect(second.working.topic).toBe("memo topic");
    expect(second.resources.files_modified).not.toContain("injected.ts");
  });

  it("parses a file changed on disk, and still refuses an invalid one", async () => {
    const r = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, topic: "memo topic" }));
    if (!r.written) throw new Error("not written");
    const text = await fsp.readFile(r.path, "utf8");
    await fsp.writeFile(r.path, text.replace("memo topic", "edited on disk"));
    expect((await readCheckpointFile(r.path, KEY)).working.topic).toBe("edited on disk");
    await fsp.writeFile(r.path, text.replace("meta:", "meta: [broken"));
    await expect(readCheckpointFile(r.path, KEY)).rejects.toThrow(/invalid YAML|meta/);
  });
});
