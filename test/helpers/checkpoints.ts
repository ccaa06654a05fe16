/** Every checkpoint of a session key, read straight from disk in numeric order (sync, for assertions). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { parseCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { parseCheckpointFileName } from "../../src/agents/checkpoint/ids.js";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";

export function readCheckpointsOnDisk(stateDir: string, sessionKey: string): Checkpoint[] {
  const dir = checkpointSessionDir(stateDir, sessionKey);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((f) => {
      const parsed = parseCheckpointFileName(f);
      return parsed ? [{ f, n: parsed.n }] : [];
    })
    .sort((a, b) => a.n - b.n)
    .map(({ f }) => parseCheckpoint(readFileSync(join(dir, f), "utf8"), f));
}
