/**
 * `/context` names the checkpoint it renders: the "Latest checkpoint" line and the restore block
 * come from one read. Once, with pi's auto-compaction writing cp_002 while `/context` ran, the
 * report named cp_001 and rendered cp_002's block (two reads of the latest). Here the next
 * checkpoint is written, as that compaction did, after the report has read the latest: at the
 * point where it asks pi for the session (the real engine, the real checkpoint store and
 * renderer; the host context is a stand-in: the write has to land between two awaits).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { checkpointSessionDir } from "../../src/infra/session-dir.js";
import { serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import { contextReport } from "../../src/agents/pi-extensions/context-manager-session.js";
import { makeCheckpoint, makeDraft } from "../checkpoint/helpers.js";
import { makeEngine, rmDir, tempDir } from "../hardening/helpers.js";

const KEY = "agent:main:test:direct:1";
const ctx = { getContextUsage: () => undefined } as unknown as ExtensionContext;

describe("/context report", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(rmDir));

  it("renders the block of the checkpoint it names, when the next one is written meanwhile", async () => {
    const stateDir = tempDir("cm-ctx-report-");
    dirs.push(stateDir);
    await writeCheckpoint({ stateDir }, makeDraft({ sessionKey: KEY, sessionId: "sess-1", trigger: "auto-80pct", topic: "first topic before the compaction" }));
    const { engine } = makeEngine({ stateDir, sessionKey: KEY, sessionId: "sess-1" });
    let written = false;
    const report = await contextReport(ctx, {
      api: async () => engine,
      session: () => {
        // the concurrent compaction's checkpoint, after the report read the latest
        const next = makeCheckpoint("cp_002", "cp_001", makeDraft({ sessionKey: KEY, sessionId: "sess-1", trigger: "compaction", topic: "second topic after the compaction" }));
        writeFileSync(join(checkpointSessionDir(stateDir, KEY), "cp_002.yaml"), serializeCheckpoint(next));
        written = true;
        return null;
      },
    });
    expect(written).toBe(true);
    expect(report).toMatch(/^Latest checkpoint: cp_001 \(auto-80pct, /m);
    expect(report).toContain("this is how cp_001 renders as post-compaction");
    const block = report.slice(report.indexOf("[Post-compaction checkpoint restore]"));
    expect(block.length).toBeGreaterThan(100);
    expect(block).toContain("first topic before the compaction");
    expect(block).not.toContain("second topic after the compaction");

    // the next /context: cp_002 named and rendered
    const next = await contextReport(ctx, { api: async () => engine, session: () => null });
    expect(next).toMatch(/^Latest checkpoint: cp_002 \(compaction, /m);
    expect(next).toContain("second topic after the compaction");
    expect(next).not.toContain("first topic before the compaction");
  });
});
