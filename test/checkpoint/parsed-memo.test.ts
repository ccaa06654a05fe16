/**
 * issue 25: a checkpoint this process wrote is not parsed again when a new session, a fresh
 * engine or a manual /compact reads it (the parse was most of a cold compaction's time). The
 * memo is keyed by the file's text, so a file changed on disk is parsed, and every reader gets
 * its own copy.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { parseCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { readCheckpointFile } from "../../src/agents/checkpoint/files.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { type CheckpointStoreOptions } from "../../src/agents/checkpoint/files.js";
import { parsedCheckpointStats } from "../../src/agents/checkpoint/yaml.js";
import { makeDraft, makeTempDir, removeDir } from "./helpers.js";
import { compactEvent, makeEngine, userMsg } from "../hardening/helpers.js";

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

  it("what the writer memoizes is exactly what a parse of its text gives (strictly: no extra or undefined fields)", async () => {
    const r = await writeCheckpoint(opts, makeDraft({ sessionKey: KEY, topic: "memo topic" }));
    if (!r.written) throw new Error("not written");
    const text = await fsp.readFile(r.path, "utf8");
    const before = parsedCheckpointStats();
    // one more trailing newline: the same document, a text the memo has not seen
    const parsed = parseCheckpoint(`${text}\n`, r.path);
    expect(parsedCheckpointStats().misses).toBe(before.misses + 1);
    expect(await readCheckpointFile(r.path, KEY)).toStrictEqual(parsed);
  });

  it("the same for a checkpoint the engine writes (work ledger, a failed command)", async () => {
    const t = makeEngine({ stateDir, sessionKey: KEY });
    await t.engine.onToolResult({ toolName: "edit", toolCallId: "c1", input: { path: "/ws/src/a.ts", oldText: "a", newText: "export function b() {}" }, content: [{ type: "text", text: "ok" }], isError: false }, "/ws");
    await t.engine.onToolResult({ toolName: "bash", toolCallId: "c2", input: { command: "npm test" }, content: [{ type: "text", text: "1 failed\nError: boom at src/a.ts:3" }], isError: true }, "/ws");
    const cp = await t.engine.onBeforeCompact(compactEvent(50_000, { messages: [userMsg("fix the build")] }), "/ws");
    if (!cp) throw new Error("no checkpoint");
    const file = path.join(checkpointSessionDir(stateDir, KEY), `${cp.meta.checkpoint_id}.yaml`);
    const parsed = parseCheckpoint(`${await fsp.readFile(file, "utf8")}\n`, file);
    expect(await readCheckpointFile(file, KEY)).toStrictEqual(parsed);
    expect(parsed.work?.files.length).toBeGreaterThan(0);
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
