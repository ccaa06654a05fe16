/**
 * Events that reach a fresh engine together (parallel tool results, pi's session_start preload
 * and a /compact) share one state load. Each used to load its own and the last one replaced the
 * others, so the capture of the events before it was lost from the next checkpoint.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compactEvent, makeEngine, removeDirs, tempDir } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

const write = (path: string) => ({ toolName: "write", toolCallId: `call-${path}`, input: { path, content: "x" }, content: [{ type: "text", text: "ok" }], isError: false });

describe("a fresh engine's first events", () => {
  it("keeps the capture of every event that arrived while the state was loading", async () => {
    const stateDir = tempDir("cm-first-events-");
    dirs.push(stateDir);
    const t = makeEngine({ stateDir });
    const files = ["/ws/a.ts", "/ws/b.ts", "/ws/c.ts"];
    await Promise.all([t.engine.ready(), ...files.map((f) => t.engine.onToolResult(write(f), "/ws"))]);
    const cp = await t.engine.onBeforeCompact(compactEvent(50_000), "/ws");
    expect(cp?.resources.files_modified).toEqual(expect.arrayContaining(["a.ts", "b.ts", "c.ts"]));
    expect(t.warnings).toEqual([]);
  });
});
