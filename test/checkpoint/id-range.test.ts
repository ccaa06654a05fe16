/**
 * issue 11 item 5: a stray file or pointer with an id at or near Number.MAX_SAFE_INTEGER used
 * to leave no room above it, so every later write of the key threw. Out-of-range ids are
 * ignored as corrupt, with a log line, and writes carry on from the valid ones.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { parseCheckpointFileName, parseCheckpointId } from "../../src/agents/checkpoint/ids.js";
import { POINTER_FILE } from "../../src/agents/checkpoint/files.js";
import { readLatestCheckpoint } from "../../src/agents/checkpoint/files.js";
import { serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { compactEvent, makeEngine, removeDirs, tempDir, userMsg } from "../hardening/helpers.js";
import { makeCheckpoint, makeDraft } from "./helpers.js";

const KEY = "agent:main:test:direct:1";
const HUGE = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 2 ** 52, 10 ** 15];
const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

function stateWith(files: Record<string, string>): { stateDir: string; dir: string } {
  const stateDir = tempDir("cp-range-");
  dirs.push(stateDir);
  const dir = checkpointSessionDir(stateDir, KEY);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return { stateDir, dir };
}

const pointerTo = (id: string) => JSON.stringify({ checkpoint_id: id, path: `${id}.yaml`, session_key: KEY, updated_at: "2026-01-01T00:00:00.000Z" });
const valid2 = serializeCheckpoint(makeCheckpoint("cp_002", null, makeDraft({ sessionKey: KEY })));

describe("checkpoint ids out of range", () => {
  it("ids above the 12-digit range are not checkpoint ids", () => {
    expect(parseCheckpointId("cp_999999999999")).toBe(999_999_999_999);
    for (const n of HUGE) {
      expect(parseCheckpointId(`cp_${n}`)).toBeNull();
      expect(parseCheckpointFileName(`cp_${n}.yaml`)).toBeNull();
    }
  });

  for (const n of HUGE) {
    it(`a stray cp_${n}.yaml and a pointer naming it: writes go on after the valid cp_002, with a warning`, async () => {
      const stray = `cp_${n}`;
      const { stateDir, dir } = stateWith({ "cp_002.yaml": valid2, [`${stray}.yaml`]: valid2.replace('"cp_002"', `"${stray}"`), [POINTER_FILE]: pointerTo(stray) });
      for (let i = 0; i < 3; i++) {
        const r = await writeCheckpoint({ stateDir }, makeDraft({ sessionKey: KEY, topic: `write ${i}` }));
        expect(r.written).toBe(true);
        if (!r.written) continue;
        expect(r.id).toBe(`cp_00${3 + i}`);
        if (i === 0) expect(r.warnings.join("\n")).toMatch(new RegExp(`${stray}.*out of range`));
      }
      expect((await readLatestCheckpoint({ stateDir }, KEY))?.working.topic).toBe("write 2");
      expect(readdirSync(dir)).toContain(`${stray}.yaml`); // left for a person to look at, not deleted
    });
  }

  it("a pointer alone naming an id at MAX_SAFE_INTEGER does not block the key", async () => {
    const { stateDir } = stateWith({ [POINTER_FILE]: pointerTo(`cp_${Number.MAX_SAFE_INTEGER}`) });
    const r = await writeCheckpoint({ stateDir }, makeDraft({ sessionKey: KEY }));
    expect(r.written && r.id).toBe("cp_001");
  });

  it("through the engine: the compaction checkpoint is written and the stray file is logged", async () => {
    const stray = `cp_${Number.MAX_SAFE_INTEGER}`;
    const { stateDir } = stateWith({ [`${stray}.yaml`]: valid2.replace('"cp_002"', `"${stray}"`), [POINTER_FILE]: pointerTo(stray) });
    const t = makeEngine({ stateDir, sessionKey: KEY });
    const messages = [userMsg("hello there")];
    await t.engine.onContext(messages, undefined);
    const cp = await t.engine.onBeforeCompact(compactEvent(50_000, { messages }), "/ws");
    expect(cp?.meta.checkpoint_id).toBe("cp_001");
    const cp2 = await t.engine.onBeforeCompact(compactEvent(60_000, { messages }), "/ws");
    expect(cp2?.meta.checkpoint_id).toBe("cp_002");
    await t.engine.flushNow(); // a compaction's checkpoint is made durable after it returns (issue 25)
    expect(t.warnings.join("\n")).toMatch(new RegExp(`${stray}.*out of range`));
  });
});
