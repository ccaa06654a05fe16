/**
 * context_search's query is bounded (SEARCH_LIMITS.query): each of its words costs a posting-list
 * walk in the archive worker, where a 1 MB query held every other key's search ~0.8 s. The
 * tool's schema says so (a longer query is refused by the host's validation); a caller that does
 * not validate (the plugin's tool factory, the CLI) gets its first 2,000 chars searched.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createContextSearchTool } from "../../src/agents/archive/search-tool.js";
import { SEARCH_LIMITS } from "../../src/agents/archive/search-params.js";
import { appendToTail } from "../../src/agents/archive/store.js";
import { searchForAgent } from "../../src/agents/engine/archive-hooks.js";
import { makeEngine, removeDirs, tempDir } from "../hardening/helpers.js";

const KEY = "agent:main:query-bound";
const dirs: string[] = [];
afterAll(() => removeDirs(dirs));

describe("context_search: the query's length", () => {
  it("the schema caps it, and a longer query is searched by its first 2,000 chars", async () => {
    const schema = createContextSearchTool(async () => "").parameters as unknown as { properties: { query: { maxLength?: number } } };
    expect(schema.properties.query.maxLength).toBe(SEARCH_LIMITS.query.maxChars);

    const stateDir = tempDir("cm-qbound-");
    dirs.push(stateDir);
    await appendToTail(stateDir, KEY, [{ role: "assistant", t: 1, text: "renamed parseConfig to loadSettings in src/config.ts" }], { session: "s1", compaction: 1 }, { maxSegments: 500, retentionDays: 30 });
    const { engine } = makeEngine({ stateDir, sessionKey: KEY });
    const filler = "zq ".repeat(SEARCH_LIMITS.query.maxChars); // no archived word
    expect(await searchForAgent(engine.runtime, { query: `loadSettings ${filler}` })).toContain("loadSettings");
    // past the cap: not searched
    expect(await searchForAgent(engine.runtime, { query: `${filler} loadSettings` })).toMatch(/^No archived fragment matches/);
    // a megabyte: answered
    expect(await searchForAgent(engine.runtime, { query: `loadSettings ${"w ".repeat(500_000)}` })).toContain("loadSettings");
  });
});
