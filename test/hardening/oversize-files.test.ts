/**
 * A stray or hostile large file where the package reads its own files. A 30 MB file in a
 * checkpoint directory used to be read and parsed on the event loop until the heap ran out
 * (the process, a whole gateway, died); a 256 KB flow sequence held the loop 1.4 s. Now such a
 * file is refused unread or unparsed, named in a clear error, and the next valid checkpoint is
 * used; the pointer and the state files have the same guard.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { stateSessionDir } from "../../src/infra/session-dir.js";
import path from "node:path";
import { parseDocument, visit } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { CheckpointError } from "../../src/agents/checkpoint/errors.js";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { POINTER_FILE } from "../../src/agents/checkpoint/files.js";
import { readCheckpointFile } from "../../src/agents/checkpoint/files.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { MAX_CHECKPOINT_BYTES, MAX_CHECKPOINT_NODES, yamlNodeEstimate } from "../../src/agents/checkpoint/yaml.js";
import { makeCheckpoint, makeDraft } from "../checkpoint/helpers.js";
import { compactEvent, makeEngine, removeDirs, tempDir } from "./helpers.js";

const KEY = "agent:main:oversize:direct:1";
const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

function checkpointDir(): { stateDir: string; dir: string } {
  const stateDir = tempDir("cm-oversize-");
  dirs.push(stateDir);
  const dir = checkpointSessionDir(stateDir, KEY);
  mkdirSync(dir, { recursive: true });
  return { stateDir, dir };
}

const valid = (id: string) => serializeCheckpoint(makeCheckpoint(id, null, makeDraft({ sessionKey: KEY })));
const flowBomb = (items: number) => `meta:\n  checkpoint_id: "cp_003"\nworking: [${"a, ".repeat(items)}]\n`;
const blockBomb = (items: number) => `meta:\n  checkpoint_id: "cp_003"\nworking:\n${"  - a\n".repeat(items)}`;

/** the nodes the parser builds (scalars, maps, sequences, pairs) */
function parsedNodes(text: string): number {
  let n = 0;
  visit(parseDocument(text), () => {
    n++;
  });
  return n;
}

describe("oversize and node-heavy files", () => {
  it("a 30 MB file under a newer id is refused unread; the previous checkpoint is the latest", async () => {
    const { stateDir, dir } = checkpointDir();
    writeFileSync(path.join(dir, "cp_001.yaml"), valid("cp_001"));
    writeFileSync(path.join(dir, "cp_002.yaml"), valid("cp_002").replace(/topic: .*/, `topic: |-\n${`    ${"x".repeat(100)}\n`.repeat(300_000)}`));
    await expect(readCheckpointFile(path.join(dir, "cp_002.yaml"), KEY)).rejects.toThrow(/cp_002\.yaml: file too large \(\d+ bytes, at most 1048576 expected\)/);
    expect((await readLatestCheckpoint({ stateDir }, KEY))?.meta.checkpoint_id).toBe("cp_001");
  });

  it("flow and block sequences of many items are refused unparsed (under the byte cap)", async () => {
    const { stateDir, dir } = checkpointDir();
    writeFileSync(path.join(dir, "cp_001.yaml"), valid("cp_001"));
    const flow = flowBomb(80_000);
    expect(flow.length).toBeLessThan(MAX_CHECKPOINT_BYTES);
    writeFileSync(path.join(dir, "cp_003.yaml"), flow);
    writeFileSync(path.join(dir, "cp_002.yaml"), blockBomb(40_000));
    writeFileSync(path.join(dir, POINTER_FILE), JSON.stringify({ checkpoint_id: "cp_003", path: "cp_003.yaml", session_key: KEY, updated_at: "2026-01-01T00:00:00.000Z" }));
    expect(() => parseCheckpoint(flow, "cp_003.yaml")).toThrow(CheckpointError);
    expect(() => parseCheckpoint(flow, "cp_003.yaml")).toThrow(/too many YAML lines and items/);
    expect((await readLatestCheckpoint({ stateDir }, KEY))?.meta.checkpoint_id).toBe("cp_001");
  });

  it("an oversize pointer is ignored and a huge state file is moved aside; the engine carries on", async () => {
    const { stateDir, dir } = checkpointDir();
    writeFileSync(path.join(dir, "cp_001.yaml"), valid("cp_001"));
    writeFileSync(path.join(dir, POINTER_FILE), `{"checkpoint_id":"cp_001","path":"cp_001.yaml","session_key":${JSON.stringify(KEY)},"pad":"${"x".repeat(2 ** 20)}"}`);
    expect((await readLatestCheckpoint({ stateDir }, KEY))?.meta.checkpoint_id).toBe("cp_001");
    const t = makeEngine({ stateDir, sessionKey: KEY });
    await t.engine.ready();
    const stateDirOfKey = stateSessionDir(stateDir, KEY);
    mkdirSync(stateDirOfKey, { recursive: true });
    writeFileSync(path.join(stateDirOfKey, "work.json"), `{"version":1,"pad":"${"x".repeat(17 * 2 ** 20)}"}`);
    const fresh = makeEngine({ stateDir, sessionKey: KEY, sessionId: "sess-2" });
    const cp = await fresh.engine.onBeforeCompact(compactEvent(50_000), "/ws");
    expect(cp?.meta.checkpoint_id).toBe("cp_002");
    // moved aside unread, named by its reason
    expect(readdirSync(path.join(stateDirOfKey, "stale")).some((f) => f.startsWith("work."))).toBe(true);
    expect(fresh.warnings.join("\n")).toMatch(/file too large/);
  });

  it.skipIf(process.platform === "win32")("a FIFO or a symlink to /dev/zero named like a checkpoint is refused unread (neither blocks nor fills memory)", async () => {
    const { stateDir, dir } = checkpointDir();
    writeFileSync(path.join(dir, "cp_001.yaml"), valid("cp_001"));
    symlinkSync("/dev/zero", path.join(dir, "cp_002.yaml"));
    execFileSync("mkfifo", [path.join(dir, "cp_003.yaml")]);
    await expect(readCheckpointFile(path.join(dir, "cp_003.yaml"), KEY)).rejects.toThrow(/cp_003\.yaml: not a regular file: not read/);
    expect((await readLatestCheckpoint({ stateDir }, KEY))?.meta.checkpoint_id).toBe("cp_001");
  });

  it("the estimate bounds the parser's nodes (within 3×) and passes every checkpoint the emitter writes", () => {
    const samples = [valid("cp_001"), flowBomb(500), blockBomb(500), 'a: "x, [y]\n  z, {w}"\nb: [c, "d, e", {f: g}]\n', "k: |-\n  [a, b, c]\n  {d: e}\nl: [1, 2]\n", '- a"\n- [b, c]\n'];
    for (const text of samples) expect(parsedNodes(text)).toBeLessThanOrEqual(3 * yamlNodeEstimate(text) + 3);
    expect(yamlNodeEstimate(valid("cp_001"))).toBeLessThan(MAX_CHECKPOINT_NODES / 10);
  });
});
