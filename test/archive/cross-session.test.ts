/** crossSession: context_search also searches the other keys of the same agent, labelled with their key; other agents never. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { appendKnowledge, knowledgeFile } from "../../src/agents/archive/knowledge-store.js";
import { appendToTail, recordArchiveKey } from "../../src/agents/archive/store.js";
import { DEFAULT_ARCHIVE_LIMITS } from "../../src/agents/archive/archive.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { searchForAgent } from "../../src/agents/engine/archive-hooks.js";

const A = "agent:main:telegram:direct:1";
const B = "agent:main:slack:direct:2";
const OTHER = "agent:ops:telegram:direct:3";

async function seed(stateDir: string, key: string, agent: string, text: string): Promise<void> {
  await recordArchiveKey(stateDir, key, agent);
  await appendKnowledge(knowledgeFile(stateDir, key), [{ kind: "implementation", subject: `file:${text}`, text: `${text}: changed`, t: 1 }], { checkpoint: "cp_001", session: key });
  await appendToTail(stateDir, key, [{ role: "tool_result", t: 1, tool: "read", target: text, text: `export function ${text.replace(/\W/g, "")}Impl() {}` }], { session: key, compaction: 1 }, DEFAULT_ARCHIVE_LIMITS);
}

describe("cross-session search", () => {
  let dir = "";
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("finds another key of the same agent only with crossSession on, labelled with its key", async () => {
    dir = mkdtempSync(join(tmpdir(), "cm-cross-"));
    await seed(dir, A, "main", "alpha.ts");
    await seed(dir, B, "main", "ledgerSync.ts");
    await seed(dir, OTHER, "ops", "ledgerSyncOps.ts");
    const at = (crossSession: boolean) => ({ stateDir: dir, sessionKey: A, config: resolveContextManagerConfig({ crossSession }) });
    const off = await searchForAgent(at(false), { query: "ledgerSync.ts" });
    expect(off).not.toContain(B);
    const on = await searchForAgent(at(true), { query: "ledgerSync.ts" });
    expect(on).toContain(`"${B}"`);
    expect(on).toMatch(/^Other sessions of this agent/m);
    expect(on).toMatch(new RegExp(`^- \\[implementation\\] "${B}" "ledgerSync\\.ts: changed"`, "m"));
    expect(on).not.toContain(OTHER);
    expect(on.length).toBeLessThanOrEqual(4000);
  });
});
