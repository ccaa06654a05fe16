/** Notices checkpoint files as they appear in the demo session's directory (synchronous: called from event hooks). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Checkpoint } from "../agents/checkpoint/schema.js";
import { checkpointSessionDir } from "../infra/session-dir.js";
import { parseCheckpoint } from "../agents/checkpoint/yaml.js";
import { parseCheckpointFileName } from "../agents/checkpoint/ids.js";
import { estimateTextTokens } from "../agents/text/token-estimate.js";

export class CheckpointWatcher {
  readonly dir: string;
  private readonly seen = new Set<string>();

  constructor(
    stateDir: string,
    sessionKey: string,
    private readonly onNew: (cp: Checkpoint, path: string, sizeTokens: number) => void,
  ) {
    this.dir = checkpointSessionDir(stateDir, sessionKey);
  }

  count(): number {
    return this.seen.size;
  }

  scan(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const files = names
      .map((n) => parseCheckpointFileName(n))
      .filter((f): f is { id: string; n: number } => f !== null && !this.seen.has(f.id))
      .sort((a, b) => a.n - b.n);
    for (const f of files) {
      const path = join(this.dir, `${f.id}.yaml`);
      try {
        const text = readFileSync(path, "utf8");
        const cp = parseCheckpoint(text, path);
        this.seen.add(f.id);
        this.onNew(cp, path, estimateTextTokens(text));
      } catch {
        // half-visible or invalid: the next scan (or `verify`) reports it
      }
    }
  }
}
