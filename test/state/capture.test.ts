import path from "node:path";
import { describe, expect, it } from "vitest";
import { endsWithQuestion, extractToolResult, proposalGist } from "../../src/agents/state/capture-rules.js";
import { statusOf, taskListItems } from "../../src/agents/state/capture-rules.js";
import { toolPathArg } from "../../src/agents/messages/read.js";
import { stripHostSystemLines, userText } from "../../src/agents/messages/read.js";
import { codePointLength, gist } from "../../src/agents/text/gist.js";
import { user } from "./fixtures.js";

const cwd = path.resolve("/work/project");
const when = new Date("2026-02-24T15:30:00Z");

describe("gist", () => {
  it("collapses all whitespace to one line and trims", () => {
    expect(gist("  a\r\n\tb\u2028c\u2029  d  ", 50)).toBe("a b c d");
  });
  it("truncates by code points with an ellipsis", () => {
    expect(gist("abcdef", 4)).toBe("abc…");
    expect(gist("abcd", 4)).toBe("abcd");
    expect(gist("😀😀😀😀😀", 3)).toBe("😀😀…");
    expect(gist("日本語のテキストです", 5)).toBe("日本語の…");
    expect(gist("x", 0)).toBe("");
  });
  it("counts code points, not UTF-16 units", () => {
    expect(codePointLength("😀😀")).toBe(2);
    expect(codePointLength("abc", 2)).toBe(2);
  });
});

describe("Layer A: extractToolResult", () => {
  it("read ok -> file read, relative to cwd", () => {
    const c = extractToolResult({ toolName: "read", input: { path: "src/a.ts" }, content: [], isError: false }, cwd, when);
    expect(c).toEqual({ tool: "read", target: "src/a.ts", file: { path: "src/a.ts", access: "read" }, failure: null });
  });
  it("read ENOENT -> failure with first error line, no file", () => {
    const c = extractToolResult(
      { toolName: "read", input: { path: "./missing.txt" }, content: [{ type: "text", text: "\nENOENT: no such file or directory, open 'missing.txt'\nstack..." }], isError: true },
      cwd,
      when,
    );
    expect(c.file).toBeNull();
    expect(c.failure).toEqual({ tool: "read", target: "missing.txt", error: "ENOENT: no such file or directory, open 'missing.txt'", when: when.toISOString() });
  });
  it("write and edit -> modified", () => {
    expect(extractToolResult({ toolName: "write", input: { path: "out.md", content: "x" }, content: [], isError: false }, cwd).file).toEqual({ path: "out.md", access: "modified" });
    expect(extractToolResult({ toolName: "edit", input: { path: `${cwd}/src/b.ts` }, content: [], isError: false }, cwd).file).toEqual({ path: "src/b.ts", access: "modified" });
  });
  it("bash -> command gist as target, no file", () => {
    const c = extractToolResult({ toolName: "bash", input: { command: "npm   test\n -- --run" }, content: [], isError: false }, cwd);
    expect(c).toMatchObject({ tool: "bash", target: "npm test -- --run", file: null, failure: null });
  });
  it("unknown tool with a path argument -> read; file_path/filePath/file accepted", () => {
    expect(extractToolResult({ toolName: "image_view", input: { file_path: "img/x.png" }, content: [], isError: false }, cwd).file).toEqual({ path: "img/x.png", access: "read" });
    expect(toolPathArg({ filePath: "a" })).toBe("a");
    expect(toolPathArg({ file: "b" })).toBe("b");
    expect(toolPathArg({ path: "a", file: "b" })).toBeNull(); // ambiguous
    expect(toolPathArg({ path: "a", file_path: "a" })).toBe("a");
  });
  it("non-string path is ignored", () => {
    const c = extractToolResult({ toolName: "read", input: { path: 42 }, content: [], isError: false }, cwd);
    expect(c.file).toBeNull();
    expect(c.target).toBe("");
  });
  it("path outside cwd stays absolute", () => {
    const outside = path.resolve("/etc/hosts");
    expect(extractToolResult({ toolName: "read", input: { path: outside }, content: [], isError: false }, cwd).file?.path).toBe(outside.split(path.sep).join("/"));
    expect(extractToolResult({ toolName: "read", input: { path: "../other/x" }, content: [], isError: false }, cwd).file?.path).toBe(
      path.resolve(cwd, "../other/x").split(path.sep).join("/"),
    );
  });
  it("redacts secrets in commands", () => {
    const c = extractToolResult({ toolName: "bash", input: { command: "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789' x" }, content: [], isError: false }, cwd);
    expect(c.target).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });
});

describe("Layer B helpers", () => {
  it("strips the host's System: block and the blank line", () => {
    expect(stripHostSystemLines("System: [Post-compaction checkpoint restore]\nSystem: topic: x\nSystem (untrusted): y\n\nhello there")).toBe("hello there");
    expect(stripHostSystemLines("hello\nSystem: not a prefix")).toBe("hello\nSystem: not a prefix");
    expect(userText(user("System: a\n\n日本語"))).toBe("日本語");
  });
  it("question marks of any script end a question", () => {
    for (const t of ["Shall I?", "続けますか？", "هل تريد المتابعة؟", "Продолжить?", "**Proceed?**", "「いいですか？」", "what‽"]) expect(endsWithQuestion(t)).toBe(true);
    for (const t of ["Done.", "完了しました。", "", "Is it? No."]) expect(endsWithQuestion(t)).toBe(false);
  });
  it("task-list items", () => {
    expect(taskListItems("Plan:\n- [ ] write tests\n* [x] read spec\n1. [ ] ship\n- [] not one")).toEqual({ open: ["write tests", "ship"], done: ["read spec"] });
  });
  it("status rules", () => {
    expect(statusOf(null)).toBe("idle");
    expect(statusOf({ role: "user", stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" })).toBe("in_progress");
    expect(statusOf({ role: "toolResult", stopReason: null, hasToolCalls: false, endsWithQuestion: false, tail: "" })).toBe("in_progress");
    expect(statusOf({ role: "assistant", stopReason: "toolUse", hasToolCalls: true, endsWithQuestion: false, tail: "" })).toBe("in_progress");
    expect(statusOf({ role: "assistant", stopReason: "stop", hasToolCalls: false, endsWithQuestion: true, tail: "" })).toBe("waiting_for_user");
    expect(statusOf({ role: "assistant", stopReason: "stop", hasToolCalls: false, endsWithQuestion: false, tail: "" })).toBe("idle");
    expect(statusOf({ role: "assistant", stopReason: "aborted", hasToolCalls: false, endsWithQuestion: false, tail: "" })).toBe("in_progress");
  });
  it("proposal gist keeps the head and the last line of a long answer", () => {
    const text = `${"Intro sentence that explains context. ".repeat(20)}\n\nOption A: Postgres, or option B: SQLite. Which one?`;
    const g = proposalGist(text);
    expect(g.startsWith("Intro sentence")).toBe(true);
    expect(g).toContain("Which one?");
    expect(codePointLength(g)).toBeLessThanOrEqual(100);
  });
});
