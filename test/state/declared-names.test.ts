import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildCheckpointDraft } from "../../src/agents/state/checkpoint-build.js";
import { renderCheckpointRestore } from "../../src/agents/inject/render-restore.js";
import type { Checkpoint } from "../../src/agents/checkpoint/schema.js";
import { ContextState } from "../../src/agents/state/context-state.js";
import { changedText, declaredNames } from "../../src/agents/state/declared-names.js";
import { CONFIG, rmDir, tempDir, user } from "./fixtures.js";

describe("declaredNames: what a change defines, from syntax only", () => {
  it("TypeScript: top-level declarations first, then members; control flow is not a name", () => {
    const src = [
      "export interface CompactionResult {",
      "  tokensBefore: number;",
      "}",
      "export class AgentSession {",
      "  private _disconnectFromAgent(): void {",
      "    if (this.unsub) {",
      "      for (const x of y) {",
      "  async compact(customInstructions?: string): Promise<CompactionResult> {",
      "  get isStreaming(): boolean {",
      "}",
      "export const runPrintMode = async (session: AgentSession) => {",
      "export type Mode = 'a' | 'b';",
      "function helper<T>(x: T) {",
    ].join("\n");
    expect(declaredNames(src, "src/core/agent-session.ts")).toEqual([
      "CompactionResult",
      "AgentSession",
      "runPrintMode()",
      "Mode",
      "helper()",
      "_disconnectFromAgent()",
      "compact()",
      "isStreaming()",
    ]);
  });

  it("Python, Go, Rust, Elixir", () => {
    expect(declaredNames("  def tool_call(conn, params) do\n  defp parse(x), do: x\n", "c.ex")).toEqual(["tool_call()", "parse()"]);
    expect(declaredNames("class Parser:\n    def parse(self, s):\n        if s:\n", "p.py")).toEqual(["Parser", "parse()"]);
    expect(declaredNames("func (s *Server) Serve(l net.Listener) error {\ntype Config struct {\n", "s.go")).toEqual(["Serve()", "Config"]);
    expect(declaredNames("pub fn run(args: Args) -> Result<()> {\npub(crate) struct Args {\nimpl Args {\n", "main.rs")).toEqual(["run()", "Args"]);
  });

  it("Markdown: headings outside code fences", () => {
    expect(declaredNames("# Plan\n```sh\n# not a heading\n```\n## WP1: Create AgentSession\n", "docs/refactor.md")).toEqual(["§ Plan", "§ WP1: Create AgentSession"]);
  });

  it("bounded: at most 12 names, scanning at most 40,000 characters", () => {
    const many = Array.from({ length: 50 }, (_, i) => `function f${i}() {}`).join("\n");
    expect(declaredNames(many, "a.ts")).toHaveLength(12);
    expect(declaredNames(`${" ".repeat(40_000)}\nfunction late() {}`, "a.ts")).toEqual([]);
  });

  it("changedText: every replacement of an edit (pi's edits[] and the legacy field), or a write's content", () => {
    expect(changedText("edit", { path: "a", edits: [{ oldText: "x", newText: "function a() {" }, { oldText: "y", newText: "class B {" }] })).toBe("function a() {\nclass B {");
    expect(changedText("edit", { path: "a", oldText: "x", newText: "def c():" })).toBe("def c():");
    expect(changedText("write", { path: "a", content: "type D = 1" })).toBe("type D = 1");
    expect(changedText("edit", null)).toBe("");
  });
});

describe("work ledger: the names reach the checkpoint and the restore block", () => {
  let stateDir: string;
  beforeEach(async () => {
    stateDir = await tempDir();
  });
  afterEach(async () => {
    await rmDir(stateDir);
  });

  it("edits then a restart: names newest first, persisted in work.json, shown in the change line, secrets redacted", async () => {
    const load = () => ContextState.load({ stateDir, sessionKey: "k", sessionId: "s1", config: CONFIG, logger: { warn: () => {} } });
    let st = await load();
    st.captureMessages([user("refactor the session")]);
    st.captureToolResult({ toolName: "write", input: { path: "src/session.ts", content: "export class Session {\n  start() {\n  }\n}\n" }, content: [], isError: false }, "/w");
    await st.flush();
    st = await load(); // names survive a restart (state file "work")
    const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    st.captureToolResult(
      { toolName: "edit", input: { path: "src/session.ts", edits: [{ oldText: "start() {", newText: `  compact(reason: string) {\n  const ${token}Handler = () => {` }] }, content: [], isError: false },
      "/w",
    );
    const draft = buildCheckpointDraft({
      state: st.snapshot(), previous: null, trigger: "compaction",
      reading: { tokens: 30_000, contextWindow: 32_000, utilization: 0.94, source: "sdk" },
      identity: { sessionKey: "k", sessionId: "s1", sessionFile: null, agentId: null, channel: null }, compactionCount: 1, config: CONFIG,
    });
    const file = draft.work!.files.find((f) => f.path.endsWith("src/session.ts"))!;
    // the token and the word characters glued to it are one secret: redacted before disk
    expect(file.names?.slice(0, 3)).toEqual(["compact()", expect.stringMatching(/^\[REDACTED:github\]\(\)$/), "Session"]);
    expect(JSON.stringify(draft)).not.toContain(token);
    const cp: Checkpoint = { ...draft, meta: { ...draft.meta, checkpoint_id: "cp_001", previous_checkpoint: null } };
    const text = renderCheckpointRestore(cp, { kind: "post-compaction", maxTokens: 800 }).text;
    expect(text).toMatch(/session\.ts: 1 write, 1 edit.*; defines "compact\(\), \[REDACTED:github\]\(\), Session, start\(\)"/);
    expect(text).not.toContain(token);
  });
});
