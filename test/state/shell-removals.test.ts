import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { buildCheckpointDraft } from "../../src/agents/state/checkpoint-build.js";
import { renderCheckpointRestore } from "../../src/agents/inject/render-restore.js";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { ContextState } from "../../src/agents/state/context-state.js";
import { validateCheckpoint } from "../../src/agents/checkpoint/validate.js";
import { removedPaths } from "../../src/agents/messages/tool-outcome.js";
import { blocksAt } from "../../src/replay/block-at.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { readTranscriptJson } from "../helpers/transcripts.js";
import { CONFIG, rmDir, tempDir } from "./fixtures.js";

describe("removedPaths (shell syntax, not guesses)", () => {
  it("names the operands of rm, unlink and git rm in every step", () => {
    expect(removedPaths("rm reproduce_bug.py")).toEqual(["reproduce_bug.py"]);
    expect(removedPaths("rm -f a.py b.py && python -m pytest")).toEqual(["a.py", "b.py"]);
    expect(removedPaths("rm -rf build/ ; unlink 'odd name.txt'")).toEqual(["build", "odd name.txt"]);
    expect(removedPaths('git rm -q "src/old.ts" -- -dash.ts')).toEqual(["src/old.ts", "-dash.ts"]);
    expect(removedPaths("FOO=1 /bin/rm x.txt | cat")).toEqual(["x.txt"]);
    expect(removedPaths("rm a\\ b.txt # rm c.txt")).toEqual(["a b.txt"]);
  });

  it("names nothing it cannot know: expansions, globs, a cd before, --cached, other programs", () => {
    expect(removedPaths("rm *.pyc")).toEqual([]);
    expect(removedPaths("rm $TMP/x")).toEqual([]);
    expect(removedPaths('rm "$(pwd)/x"')).toEqual([]);
    expect(removedPaths("rm ~/x")).toEqual([]);
    expect(removedPaths("cd sub && rm a.py")).toEqual([]);
    expect(removedPaths("git rm --cached a.py")).toEqual([]);
    expect(removedPaths("echo rm a.py")).toEqual([]);
    expect(removedPaths("grep -r 'rm a.py' .")).toEqual([]);
    expect(removedPaths("rm 'unterminated")).toEqual([]);
    expect(removedPaths("rm -- . ..")).toEqual([]);
  });

  it("is bounded on hostile input", () => {
    expect(removedPaths(`rm ${Array.from({ length: 500 }, (_, i) => `f${i}`).join(" ")}`).length).toBe(64);
    expect(removedPaths(`rm ${"'".repeat(100_000)}`)).toEqual([]);
    expect(removedPaths(undefined as unknown as string)).toEqual([]);
  });
});

describe("a removed file in the work ledger, the checkpoint and the restore block", () => {
  let stateDir: string;
  beforeEach(async () => {
    stateDir = await tempDir();
  });
  afterEach(async () => {
    await rmDir(stateDir);
  });
  const identity = { sessionKey: "k", sessionId: "s1", sessionFile: "/tmp/s.jsonl", agentId: "main", channel: "cli" };
  const reading = { tokens: 150_000, contextWindow: 200_000, utilization: 0.75, source: "sdk" as const };
  const now = new Date("2026-02-24T15:30:00Z");
  const load = () => ContextState.load({ stateDir, sessionKey: "k", sessionId: "s1", config: CONFIG, logger: { warn: () => {} } });
  const checkpointOf = (st: ContextState): Checkpoint => {
    const d = buildCheckpointDraft({ state: st.snapshot(), previous: null, trigger: "compaction", reading, identity, compactionCount: 1, config: CONFIG, now });
    return { ...d, meta: { ...d.meta, checkpoint_id: "cp_001", previous_checkpoint: null } };
  };
  const write = (st: ContextState, path: string) =>
    st.captureToolResult({ toolName: "write", input: { path, content: "import os\n" }, content: [], isError: false }, "/w");
  const bash = (st: ContextState, command: string, isError = false, out = "") =>
    st.captureToolResult({ toolName: "bash", input: { command }, content: [{ type: "text", text: out }], isError }, "/w");

  it("marks only changed files the command certainly removed, survives a reload, and a later write clears it", async () => {
    const st = await load();
    write(st, "scratch.py");
    write(st, "src/lib/a.ts");
    write(st, "keep.py");
    bash(st, "rm /w/scratch.py && rm -r src/lib");
    bash(st, "rm keep.py", true, "rm: cannot remove 'keep.py': Permission denied");
    bash(st, "rm never-changed.txt");
    const files = checkpointOf(st).work!.files;
    expect(Object.fromEntries(files.map((f) => [f.path, f.deleted === true]))).toEqual({ "scratch.py": true, "src/lib/a.ts": true, "keep.py": false });
    expect(files[0]!.path).toBe("keep.py"); // a file still there ranks before the deleted ones

    const other = await ContextState.load({ stateDir: `${stateDir}-2`, sessionKey: "k", sessionId: "s1", config: CONFIG, logger: { warn: () => {} } });
    other.captureToolResult({ toolName: "write", input: { path: "/etc/x.conf", content: "a=1\n" }, content: [], isError: false }, "/w");
    other.captureToolResult({ toolName: "bash", input: { command: "rm -rf --no-preserve-root /" }, content: [], isError: false }, "/w");
    expect(checkpointOf(other).work!.files[0]!.deleted).toBe(true);
    await rmDir(`${stateDir}-2`);

    await st.flush();
    const reloaded = await load();
    expect(checkpointOf(reloaded).work!.files.find((f) => f.path === "scratch.py")!.deleted).toBe(true);
    write(reloaded, "scratch.py");
    expect(checkpointOf(reloaded).work!.files.find((f) => f.path === "scratch.py")!.deleted).toBeUndefined();
  });

  it("the checkpoint validates with the field and rejects a wrong type; the block says deleted", async () => {
    const st = await load();
    write(st, "scratch.py");
    bash(st, "rm scratch.py");
    const cp = checkpointOf(st);
    const parsed = validateCheckpoint(parse(stringify(cp)), "cp.yaml");
    expect(parsed.work!.files[0]!.deleted).toBe(true);
    const bad = stringify({ ...cp, work: { ...cp.work!, files: [{ ...cp.work!.files[0]!, deleted: "yes" }] } });
    expect(() => validateCheckpoint(parse(bad), "cp.yaml")).toThrow(/work\.files\[0\]\.deleted/);
    const text = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: 800 }).text;
    expect(text).toMatch(/^- scratch\.py: deleted, 1 write/m);
  });
});

// Ground truth from the transcript itself: the files its own `rm` calls removed after writing them.
describe("replayed session that deleted its scratch file", () => {
  it("the final block marks every file the session wrote and then removed with rm as deleted", async () => {
    const messages = readTranscriptJson<Array<{ role: string; content?: unknown }>>("SWE-agent__SWE-agent__pydicom__pydicom-1458.json");
    const written = new Set<string>();
    const removed: string[] = [];
    for (const m of messages) {
      if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
      for (const b of m.content as Array<{ type?: string; name?: string; arguments?: Record<string, unknown> }>) {
        if (b.type !== "toolCall") continue;
        if (b.name === "write" && typeof b.arguments?.path === "string") written.add(String(b.arguments.path).replace(/^\/replay-cwd\//, ""));
        const cmd = b.arguments?.command;
        const m2 = typeof cmd === "string" ? /^rm\s+([\w./-]+)\s*$/.exec(cmd.trim()) : null;
        if (m2 && written.has(m2[1]!)) removed.push(m2[1]!);
      }
    }
    expect(removed.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), "rm-replay-"));
    try {
      const [block] = await blocksAt(messages, [messages.length], dir);
      for (const p of removed) {
        expect(block!.checkpoint.work!.files.find((f) => f.path === p)?.deleted).toBe(true);
        expect(block!.text).toContain(`- ${p}: deleted`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, TEST_TIMEOUT_MS);
});
