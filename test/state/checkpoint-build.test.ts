import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildCheckpointDraft } from "../../src/agents/state/checkpoint-build.js";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { ContextState } from "../../src/agents/state/context-state.js";
import { CONFIG, assistant, rmDir, tempDir, user } from "./fixtures.js";

let stateDir: string;
beforeEach(async () => {
  stateDir = await tempDir();
});
afterEach(async () => {
  await rmDir(stateDir);
});

const identity = { sessionKey: "k", sessionId: "s1", sessionFile: "/tmp/s.jsonl", agentId: "main", channel: "telegram" };
const reading = { tokens: 162_431, contextWindow: 200_000, utilization: 0.812155, source: "sdk" as const };
const now = new Date("2026-02-24T15:30:00Z");
const LONG = "Plan details. ".repeat(50) + "\nA or B?";

function load() {
  return ContextState.load({ stateDir, sessionKey: "k", sessionId: "s1", config: CONFIG, logger: { warn: () => {} } });
}

function asCheckpoint(draft: ReturnType<typeof buildCheckpointDraft>, id: string, prev: string | null): Checkpoint {
  return { ...draft, meta: { ...draft.meta, checkpoint_id: id, previous_checkpoint: prev } };
}

describe("buildCheckpointDraft", () => {
  it("builds meta, working, thread summary from the state", async () => {
    const st = await load();
    st.captureMessages([user("Plan a trip to Japan"), assistant(LONG), user("B")]);
    const d = buildCheckpointDraft({ state: st.snapshot(), previous: null, trigger: "auto-80pct", reading, identity, compactionCount: 0, config: CONFIG, now });
    expect(d.meta).toEqual({
      session_key: "k", session_id: "s1", session_file: "/tmp/s.jsonl", created_at: "2026-02-24T15:30:00.000Z", trigger: "auto-80pct",
      compaction_count: 0, token_usage: { input_tokens: 162_431, context_window: 200_000, utilization: 0.8122 }, channel: "telegram", agent_id: "main",
    });
    expect(d.thread.summary).toBe("Plan a trip to Japan ... B");
    expect(d.working).toMatchObject({ topic: "B", status: "in_progress", interrupted: false, last_tool_call: null, next_action: "Respond to: B" });
    expect(d.decisions).toHaveLength(1);
    expect(d.decisions[0]!.id).toBe("d1");
  });

  it("carries the previous checkpoint of the same session forward and merges the delta after reset", async () => {
    const st = await load();
    const turn1 = [user("first"), assistant(LONG), user("A")];
    st.captureMessages(turn1);
    st.captureToolResult({ toolName: "read", input: { path: "a.ts" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "bash", input: { command: "make" }, content: "error 2", isError: true }, "/w");
    st.addNote("learning", "User likes short answers");
    const cp1 = asCheckpoint(buildCheckpointDraft({ state: st.snapshot(), previous: null, trigger: "auto-80pct", reading, identity, compactionCount: 0, config: CONFIG, now }), "cp_001", null);
    await st.reset();
    st.captureMessages([...structuredClone(turn1), assistant(LONG), user("B")]);
    st.captureToolResult({ toolName: "edit", input: { path: "a.ts" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "bash", input: { command: "make" }, content: [], isError: false }, "/w");
    const d2 = buildCheckpointDraft({ state: st.snapshot(), previous: cp1, trigger: "compaction", reading, identity, compactionCount: 1, config: CONFIG, now });
    expect(d2.decisions.map((d) => d.id)).toEqual(["d1", "d2"]);
    expect(d2.decisions[1]!.what.endsWith("→ B")).toBe(true);
    expect(d2.resources).toEqual({ files_read: [], files_modified: ["a.ts"], tools_used: ["read", "edit", "bash"] }); // LRU: bash used again last
    expect(d2.thread.errors.map((e) => e.target)).toEqual(["make"]); // history kept
    expect(d2.open_items).toEqual([]); // the failure was closed after the reset
    expect(d2.learnings).toEqual(["User likes short answers"]);
    expect(d2.thread.summary).toBe("first ... B");
    expect(d2.thread.key_exchanges[0]).toEqual({ role: "user", gist: "first" });
    expect(d2.thread.key_exchanges.at(-1)).toEqual({ role: "user", gist: "B" });
    // another session id: nothing carried forward
    const other = buildCheckpointDraft({ state: st.snapshot(), previous: cp1, trigger: "compaction", reading, identity: { ...identity, sessionId: "s2" }, compactionCount: 0, config: CONFIG, now });
    expect(other.learnings).toEqual([]);
    expect(other.decisions.map((d) => d.id)).toEqual(["d1"]);
  });

  it("merges compaction fileOps: written+edited -> modified, modified not also read; split turn", async () => {
    const st = await load();
    st.captureToolResult({ toolName: "read", input: { path: "c.ts" }, content: [], isError: false }, "/w");
    const d = buildCheckpointDraft({
      state: st.snapshot(), previous: null, trigger: "compaction", reading, identity, compactionCount: 1, config: { ...CONFIG, maxFiles: 3 }, now, cwd: "/w",
      fileOps: { read: new Set(["/w/a.ts", "/w/b.ts", "/w/c.ts"]), written: new Set(["/w/b.ts"]), edited: new Set(["/w/c.ts", "/w/d.ts"]) },
      splitTurn: { isSplitTurn: true, lastToolCall: { name: "edit", params_summary: "d.ts" } },
    });
    expect(d.resources.files_modified).toEqual(["b.ts", "c.ts", "d.ts"]);
    expect(d.resources.files_read).toEqual(["a.ts"]);
    expect(d.working.interrupted).toBe(true);
    expect(d.working.last_tool_call).toEqual({ name: "edit", params_summary: "d.ts" });
  });

  it("a path pi's fileOps lists as read but whose read only failed is a failure, not a file read", async () => {
    const st = await load();
    st.captureToolResult({ toolName: "read", input: { path: "missing.ts" }, content: [{ type: "text", text: "ENOENT" }], isError: true }, "/w");
    st.captureToolResult({ toolName: "read", input: { path: "retry.ts" }, content: [{ type: "text", text: "EACCES" }], isError: true }, "/w");
    st.captureToolResult({ toolName: "read", input: { path: "retry.ts" }, content: [], isError: false }, "/w");
    const d = buildCheckpointDraft({
      state: st.snapshot(), previous: null, trigger: "compaction", reading, identity, compactionCount: 1, config: CONFIG, now, cwd: "/w",
      fileOps: { read: new Set(["/w/missing.ts", "/w/retry.ts", "/w/ok.ts"]), written: new Set(), edited: new Set() },
    });
    expect(d.resources.files_read).not.toContain("missing.ts");
    expect(d.resources.files_read).toEqual(expect.arrayContaining(["retry.ts", "ok.ts"]));
    expect(d.thread.errors.map((e) => e.target)).toContain("missing.ts");
  });

  it("caps keep the newest; summary is just the first message when first = last", async () => {
    const st = await load();
    st.captureMessages([user("only one")]);
    const prev = asCheckpoint(
      buildCheckpointDraft({ state: st.snapshot(), previous: null, trigger: "auto-80pct", reading, identity, compactionCount: 0, config: CONFIG, now }),
      "cp_001",
      null,
    );
    expect(prev.thread.summary).toBe("only one");
    prev.open_items = ["o1", "o2", "o3"];
    st.addNote("open_item", "o4");
    const d = buildCheckpointDraft({ state: st.snapshot(), previous: prev, trigger: "auto-80pct", reading, identity, compactionCount: 0, config: { ...CONFIG, maxOpenItems: 3 }, now });
    expect(d.open_items).toEqual(["o2", "o3", "o4"]);
  });
});
