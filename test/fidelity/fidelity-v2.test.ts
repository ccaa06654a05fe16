/**
 * Fidelity v2's own ground-truth rules (independent of the capture code), on small
 * hand-made transcripts in Pi's message format, and its reading of the block's text.
 */
import { describe, expect, it } from "vitest";
import { commandFamilyOf, expandFolds, fidelityV2, stripTaggedBlocks, transcriptFacts, type RecordedMsg } from "../../src/replay/fidelity-v2.js";

let n = 0;
const user = (text: string): RecordedMsg => ({ role: "user", content: text });
const call = (name: string, args: Record<string, unknown>): [RecordedMsg, string] => {
  const id = `c${++n}`;
  return [{ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }] }, id];
};
const result = (id: string, name: string, text: string, isError = false): RecordedMsg => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError,
});
function tool(name: string, args: Record<string, unknown>, text: string, isError = false): RecordedMsg[] {
  const [a, id] = call(name, args);
  return [a, result(id, name, text, isError)];
}

describe("fidelity v2 ground truth", () => {
  it("a grep/rg exit 1 with no output is not a failure; other exit codes are", () => {
    const msgs = [
      user("find it"),
      ...tool("bash", { command: "grep -n foo src/a.ts" }, "(no output)\n\nCommand exited with code 1", true),
      ...tool("bash", { command: "rg foo" }, "Command exited with code 1", true),
      ...tool("bash", { command: "grep foo missing.ts" }, "grep: missing.ts: No such file or directory\n\nCommand exited with code 2", true),
    ];
    const f = transcriptFacts(msgs, msgs.length);
    expect(f.failures.map((x) => x.target)).toEqual(["grep foo missing.ts"]);
  });

  it("a later success of the same command family or the same file closes a failure", () => {
    const msgs = [
      user("push it"),
      ...tool("bash", { command: "cd /r && git push" }, "fatal: The current branch x has no upstream branch.", true),
      ...tool("edit", { path: "src/a.ts", oldText: "a", newText: "b" }, "Could not find the exact text", true),
      ...tool("bash", { command: "git push --set-upstream origin x" }, "ok"),
      ...tool("edit", { path: "./src/a.ts", oldText: "a2", newText: "b" }, "ok"),
      ...tool("bash", { command: "npm run build" }, "error TS1", true),
      ...tool("bash", { command: "npm run test" }, "ok"),
    ];
    const f = transcriptFacts(msgs, msgs.length);
    expect(f.failures.map((x) => [x.target, x.closedAt !== null])).toEqual([
      ["cd /r && git push", true],
      ["src/a.ts", true],
      ["npm run build", false],
    ]);
    expect(f.modified).toEqual(["src/a.ts"]);
  });

  it("two later user requests supersede a failure; one does not", () => {
    const base = [user("do"), ...tool("bash", { command: "make" }, "make: *** [all] Error 1", true)];
    expect(transcriptFacts([...base, user("continue")], 99).failures[0]!.closedAt).toBeNull();
    expect(transcriptFacts([...base, user("continue"), { role: "assistant", content: [] }, user("other")], 99).failures[0]!.closedAt).not.toBeNull();
  });

  it("only the first `delivered` messages count", () => {
    const msgs = [user("a"), ...tool("write", { path: "x.ts", content: "1" }, "ok"), user("b"), ...tool("write", { path: "y.ts", content: "1" }, "ok")];
    expect(transcriptFacts(msgs, 3).modified).toEqual(["x.ts"]);
    expect(transcriptFacts(msgs, 3).requests.map((r) => r.text)).toEqual(["a"]);
  });

  it("host-injected tagged blocks are not user requests; consecutive user messages are one", () => {
    expect(stripTaggedBlocks("<task-notification>\n<task-id>1</task-id>\ndone\n</task-notification>")).toBe("");
    expect(stripTaggedBlocks("<b>bold</b> stays")).toBe("<b>bold</b> stays");
    const msgs = [user("first"), { role: "assistant", content: [] }, user("<local-command-stdout>x</local-command-stdout>"), user("continue please")];
    expect(transcriptFacts(msgs, msgs.length).requests.map((r) => r.text)).toEqual(["first", "continue please"]);
  });

  it("command family: program + subcommand; npm run + script", () => {
    expect(commandFamilyOf("cd /x && FOO=1 git push --set-upstream origin b")).toBe("git push");
    expect(commandFamilyOf("npm run check 2>&1 | tail")).toBe("npm run check");
    expect(commandFamilyOf("ls -la")).toBe("ls");
  });
});

describe("fidelity v2 reading of the text", () => {
  it("expands the fold notation", () => {
    expect(expandFolds("- also: src/{core/{a.ts, b.ts}, c.ts}, README.md")).toEqual(
      expect.arrayContaining(["src/core/a.ts", "src/core/b.ts", "src/c.ts", "README.md"]),
    );
  });

  it("scores a block: files under a root, listed failures, stale next action, last 3 requests", () => {
    const msgs = [
      user("goal: fix the parser"),
      ...tool("write", { path: "/r/src/p.ts", content: "x" }, "ok"),
      ...tool("bash", { command: "npm test" }, "FAIL p.test.ts", true),
      user("now the docs"),
      ...tool("edit", { path: "/r/docs/a.md", oldText: "a", newText: "b" }, "ok"),
      ...tool("bash", { command: "make docs" }, "make: *** Error 2", true),
      user("and commit"),
    ];
    const good = [
      "Next action: \"Respond to: and commit\"",
      "Files changed: 2 (root /r/)",
      "- src/p.ts: created",
      "- also: docs/{a.md}",
      "Open failures:",
      "- bash \"make docs\": \"make: *** Error 2\"",
      "User requests (newest first): \"and commit\" · \"now the docs\" · \"goal: fix the parser\"",
    ].join("\n");
    const v = fidelityV2(msgs, msgs.length, good);
    expect(v.modifiedFiles.recall).toBe(1);
    expect(v.failures).toMatchObject({ listed: 1, unresolved: 1 });
    expect(v.nextAction.stale).toBe(false);
    expect(v.lastRequests).toMatchObject({ expected: 3, found: 3 });

    const bad = "Next action: \"Open item: Unresolved failure: bash npm test: FAIL p.test.ts\"\nFiles modified: \"/r/src/p.ts\"";
    const w = fidelityV2(msgs, msgs.length, bad);
    expect(w.modifiedFiles.missing).toEqual(["/r/docs/a.md"]);
    expect(w.nextAction.stale).toBe(true);
    expect(w.lastRequests.found).toBe(0);
    // "npm test" was superseded by two later requests: listing it counts as resolved
    const listed = fidelityV2(msgs, msgs.length, "Open failures:\n- bash \"npm test\": \"FAIL p.test.ts\"");
    expect(listed.failures).toMatchObject({ listed: 1, unresolved: 0 });
  });
});
