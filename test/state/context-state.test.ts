import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ContextState } from "../../src/agents/state/context-state.js";
import { nodeFsOps, type FsOps } from "../../src/infra/fs-ops.js";
import { CONFIG, assistant, rmDir, tempDir, tick, toolResult, user } from "./fixtures.js";

let stateDir: string;
const logs: string[] = [];
const debugs: string[] = [];
const logger = { warn: (m: string) => logs.push(m), debug: (m: string) => debugs.push(m) };

beforeEach(async () => {
  stateDir = await tempDir();
  logs.length = 0;
  debugs.length = 0;
});
afterEach(async () => {
  await rmDir(stateDir);
});

function load(extra: Partial<Parameters<typeof ContextState.load>[0]> = {}) {
  return ContextState.load({ stateDir, sessionKey: "telegram:user1", sessionId: "s1", config: CONFIG, logger, ...extra });
}

const LONG = "Here is the plan. ".repeat(40) + "\nOption A or option B?";

describe("Layer B capture: thread, decisions, languages", () => {
  const cases: Array<[string, string, string]> = [
    ["Latin", "Plan a trip to Japan in March", "Option A"],
    ["Chinese", "帮我计划三月去日本的旅行，预算有限", "好的，就按第一个方案来，谢谢你的建议"], // 20 CJK chars: short
    ["Japanese", "三月に日本旅行を計画してください", "はい、それでお願いします"],
    ["Cyrillic", "Помоги спланировать поездку в Японию", "Да, давай вариант А"],
    ["Arabic", "ساعدني في التخطيط لرحلة إلى اليابان", "نعم، الخيار الأول"],
  ];
  for (const [name, first, reply] of cases) {
    it(`${name}: short reply after a long answer is a decision`, async () => {
      const st = await load();
      st.captureMessages([user(first), assistant(LONG), user(reply)]);
      const s = st.snapshot();
      expect(s.firstUser).toBe(first);
      expect(s.lastUser).toBe(reply);
      expect(s.decisions).toHaveLength(1);
      expect(s.decisions[0]!.what.endsWith(` → ${reply}`)).toBe(true);
      expect(s.decisions[0]!.what.startsWith("Here is the plan.")).toBe(true);
      expect(s.keyExchanges.map((e) => e.role)).toEqual(["user", "agent", "user"]);
      expect(s.status).toBe("in_progress");
      expect(s.nextAction).toBe(`Respond to: ${reply}`);
    });
  }
  it("a 50+ code point reply is not a decision; a short reply after a short answer is not either", async () => {
    const st = await load();
    const longReply = "日".repeat(50);
    st.captureMessages([user("q"), assistant(LONG), user(longReply), assistant("ok"), user("yes")]);
    expect(st.snapshot().decisions).toHaveLength(0);
  });
  it("a short reply that asks a question (any script's mark) is not a decision", async () => {
    const st = await load();
    st.captureMessages([user("q"), assistant(LONG), user("Where were we?"), assistant(LONG), user("这是什么意思？"), assistant(LONG), user("ماذا بعد؟")]);
    expect(st.snapshot().decisions).toHaveLength(0);
    expect(st.snapshot().keyExchanges.filter((e) => e.role === "user").length).toBeGreaterThan(1);
  });
  it("skips injected custom messages and host System: lines", async () => {
    const st = await load();
    const gauge = { role: "custom", customType: "context-gauge", content: "[Context: 81%]", display: false, timestamp: tick() } as AgentMessage;
    st.captureMessages([user("System: [Session resume checkpoint restore]\nSystem: x\n\nreal question"), gauge]);
    expect(st.snapshot().firstUser).toBe("real question");
    expect(st.snapshot().keyExchanges).toEqual([{ role: "user", gist: "real question" }]);
  });
  it("key exchanges: first user + pivots + last 2 pairs, capped at maxExchanges", async () => {
    const st = await load({ config: { ...CONFIG, maxExchanges: 4 } });
    const msgs: AgentMessage[] = [user("first")];
    for (let i = 0; i < 10; i++) msgs.push(assistant(i % 2 ? LONG : `short ${i}`), user(`u${i}`));
    st.captureMessages(msgs);
    const ex = st.snapshot().keyExchanges;
    expect(ex).toHaveLength(4);
    expect(ex[0]).toEqual({ role: "user", gist: "first" });
    expect(ex.at(-1)).toEqual({ role: "user", gist: "u9" });
  });
  it("status: waiting_for_user on a question (any script), idle after a statement", async () => {
    const st = await load();
    st.captureMessages([user("a"), assistant("续写还是停止？")]);
    expect(st.snapshot().status).toBe("waiting_for_user");
    expect(st.snapshot().nextAction).toBe("Wait for the user's answer to: 续写还是停止？");
    st.captureMessages([user("a"), assistant("续写还是停止？"), user("b"), assistant("Готово.")]);
    expect(st.snapshot().status).toBe("idle");
  });
});

describe("cursor", () => {
  it("same array twice -> no double capture; growing array -> only new", async () => {
    const st = await load();
    const msgs = [user("one"), assistant(LONG), user("ok")];
    st.captureMessages(msgs);
    st.captureMessages(structuredClone(msgs));
    expect(st.snapshot().decisions).toHaveLength(1);
    expect(st.snapshot().messagesSeen).toBe(3);
    const grown = [...structuredClone(msgs), assistant(LONG), user("fine")];
    st.captureMessages(grown);
    expect(st.snapshot().decisions).toHaveLength(2);
    expect(st.snapshot().messagesSeen).toBe(5);
  });
  it("after a compaction the kept messages are not re-captured", async () => {
    const st = await load();
    const old = [user("one"), assistant(LONG), user("ok"), assistant(LONG), user("go")];
    st.captureMessages(old);
    expect(st.snapshot().decisions).toHaveLength(2);
    const summary = { role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: tick() } as AgentMessage;
    const kept = structuredClone(old.slice(3));
    st.captureMessages([summary, ...kept, assistant(LONG), user("yes")]);
    expect(st.snapshot().decisions).toHaveLength(3);
    // the summary sits before the kept messages: only the 2 new ones are processed
    expect(st.snapshot().messagesSeen).toBe(5 + 2);
  });
  it("same-millisecond siblings are handled", async () => {
    const st = await load();
    const t = tick();
    const call = assistant("", { toolCalls: [{ id: "a", name: "read", arguments: { path: "x" } }, { id: "b", name: "read", arguments: { path: "y" } }] });
    const msgs = [user("q"), call, toolResult("a", "read", "x", false, t), toolResult("b", "read", "y", false, t)];
    st.captureMessages(msgs);
    const before = st.snapshot().messagesSeen;
    // compaction dropped the first message, shifting indices; nothing new
    st.captureMessages(msgs.slice(1));
    expect(st.snapshot().messagesSeen).toBe(before);
  });
  it("restart: load() on the same dir reloads state and cursor", async () => {
    const st = await load();
    const msgs = [user("one"), assistant(LONG), user("ok")];
    st.captureMessages(msgs);
    st.captureToolResult({ toolName: "read", input: { path: "a.txt" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "bash", input: { command: "false" }, content: [{ type: "text", text: "exit 1" }], isError: true }, "/w");
    st.addNote("learning", "User prefers tabs");
    await st.flush();
    const again = await load();
    const s = again.snapshot();
    expect(s).toEqual(st.snapshot());
    again.captureMessages(structuredClone(msgs));
    expect(again.snapshot().decisions).toHaveLength(1);
    expect(again.dirty).toBe(false);
    expect(logs).toEqual([]);
  });
});

describe("caps and eviction", () => {
  it("new items still land when full (oldest dropped); a file touched again moves to the end", async () => {
    const st = await load({ config: { ...CONFIG, maxFiles: 3, maxTools: 2, maxErrors: 2, maxDecisions: 2 } });
    for (const f of ["a", "b", "c"]) st.captureToolResult({ toolName: "read", input: { path: f }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "read", input: { path: "d" }, content: [], isError: false }, "/w");
    expect(st.snapshot().resources.files_read).toEqual(["c", "a", "d"]);
    for (const t of ["t1", "t2", "t3"]) st.captureToolResult({ toolName: t, input: {}, content: [], isError: false }, "/w");
    expect(st.snapshot().resources.tools_used).toEqual(["t2", "t3"]);
    for (const e of ["e1", "e2", "e3"]) st.captureToolResult({ toolName: "bash", input: { command: e }, content: "boom", isError: true }, "/w");
    expect(st.snapshot().errors.map((e) => e.target)).toEqual(["e2", "e3"]);
    st.captureMessages([user("a"), assistant(LONG), user("1"), assistant(LONG), user("2"), assistant(LONG), user("3")]);
    expect(st.snapshot().decisions.map((d) => d.what.split(" → ")[1])).toEqual(["2", "3"]);
  });
  it("a modified file is not listed as read", async () => {
    const st = await load();
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "edit", input: { path: "a" }, content: [], isError: false }, "/w");
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: [], isError: false }, "/w");
    expect(st.snapshot().resources).toMatchObject({ files_read: [], files_modified: ["a"] });
  });
});

describe("open items lifecycle", () => {
  it("failure opens, success of same tool+target closes; failures are no open items and never the next action", async () => {
    const st = await load();
    st.captureMessages([user("read x")]);
    st.captureToolResult({ toolName: "read", input: { path: "x.txt" }, content: "ENOENT: no such file", isError: true }, "/w");
    const open = () => st.snapshot().work.open_failures.map((f) => `${f.tool} ${f.target}: ${f.error}`);
    expect(open()).toEqual(["read x.txt: ENOENT: no such file"]);
    expect(st.snapshot().openItems).toEqual([]);
    st.captureToolResult({ toolName: "read", input: { path: "other.txt" }, content: [], isError: false }, "/w");
    expect(open()).toHaveLength(1);
    expect(st.snapshot().nextAction).toBe("Respond to: read x");
    st.captureToolResult({ toolName: "read", input: { path: "x.txt" }, content: [], isError: false }, "/w");
    expect(open()).toEqual([]);
    expect(st.snapshot().errors).toHaveLength(1); // the history keeps it
  });
  it("task lists, interrupted turns and tool calls without result", async () => {
    const st = await load();
    st.captureMessages([user("go"), assistant("- [ ] write tests\n- [ ] ship it")]);
    expect(st.snapshot().openItems).toEqual(["write tests", "ship it"]);
    st.captureMessages([user("more"), assistant("- [x] Write tests")]);
    expect(st.snapshot().openItems).toEqual(["ship it"]);
    st.captureMessages([user("again"), assistant("partial", { stopReason: "aborted" })]);
    const s = st.snapshot();
    expect(s.interrupted).toBe(true);
    expect(s.openItems[1]).toBe("Interrupted turn (aborted): again");
    expect(s.nextAction).toBe("Resume the interrupted turn: again (check the last step's effect before repeating it)");
    st.captureMessages([user("continue"), assistant("", { toolCalls: [{ id: "c9", name: "read", arguments: { path: "z" } }] }), user("stop that"), assistant("done")]);
    const s2 = st.snapshot();
    expect(s2.interrupted).toBe(false);
    expect(s2.openItems).toEqual(["ship it", "Tool call without result: read z"]);
    expect(s2.lastToolCall).toEqual({ name: "read", params_summary: "z" });
  });
});

describe("persistence", () => {
  it("flush writes only the changed files", async () => {
    const renames: string[] = [];
    const spy: FsOps = { ...nodeFsOps, rename: async (a, b) => { renames.push(path.basename(b)); return nodeFsOps.rename(a, b); } };
    const st = await load({ fs: spy });
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: [], isError: false }, "/w");
    expect(st.dirtyFileNames).toEqual(["resources"]);
    await st.flush();
    expect(renames).toEqual(["resources.json"]);
    renames.length = 0;
    await st.flush();
    expect(renames).toEqual([]);
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: [], isError: false }, "/w"); // no change
    await st.flush();
    expect(renames).toEqual([]);
    st.addNote("decision", "Use SQLite");
    await st.flush();
    expect(renames).toEqual(["decisions.json"]);
    const env = JSON.parse(await fs.readFile(path.join(st.dir, "decisions.json"), "utf8"));
    expect(env).toMatchObject({ version: 1, session_id: "s1", session_key: "telegram:user1", data: { items: [{ what: "Use SQLite" }] } });
  });
  it("a turn's flush is atomic without fsync; the reset after a checkpoint is fsync'd, files and directory", async () => {
    const syncs: string[] = [];
    const spy: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        const fh = await nodeFsOps.open(p, flags, mode);
        return { ...fh, writeFile: (d) => fh.writeFile(d), close: () => fh.close(), sync: () => (syncs.push(path.basename(p)), fh.sync()) };
      },
    };
    const st = await load({ fs: spy });
    st.addNote("decision", "Use SQLite");
    await st.flush();
    expect(syncs).toEqual([]);
    const env = JSON.parse(await fs.readFile(path.join(st.dir, "decisions.json"), "utf8"));
    expect(env.data.items[0].what).toBe("Use SQLite");
    expect((await fs.readdir(st.dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    await st.reset();
    // six temp files, then the directory once
    expect(syncs).toHaveLength(7);
    expect(syncs.filter((n) => n.endsWith(".tmp"))).toHaveLength(6);
  });
  it("a failed write keeps the file dirty, logs once, never throws", async () => {
    let fail = true;
    const flaky: FsOps = { ...nodeFsOps, rename: async (a, b) => { if (fail) throw Object.assign(new Error("no space"), { code: "ENOSPC" }); return nodeFsOps.rename(a, b); } };
    const st = await load({ fs: flaky });
    st.addNote("learning", "x");
    await st.flush();
    await st.flush();
    expect(st.dirty).toBe(true);
    expect(logs).toHaveLength(1);
    fail = false;
    await st.flush();
    expect(st.dirty).toBe(false);
  });
  it("stale state of another session id is moved aside, not merged", async () => {
    const st = await load();
    st.addNote("decision", "old decision");
    st.captureMessages([user("old topic")]);
    await st.flush();
    const fresh = await load({ sessionId: "s2" });
    expect(fresh.snapshot().decisions).toEqual([]);
    expect(fresh.snapshot().firstUser).toBeNull();
    // the normal path of a new session: debug level, no warning
    expect(logs).toEqual([]);
    expect(debugs).toHaveLength(1);
    expect(debugs[0]).toContain("another session");
    const stale = await fs.readdir(path.join(fresh.dir, "stale"));
    expect(stale.some((f) => f.startsWith("decisions."))).toBe(true);
    expect(stale.some((f) => f.startsWith("thread."))).toBe(true);
    await expect(fs.stat(path.join(fresh.dir, "decisions.json"))).rejects.toThrow();
  });
  it("state older than the latest checkpoint is stale", async () => {
    const st = await load();
    st.addNote("decision", "bundled already");
    await st.flush();
    const later = new Date(Date.now() + 60_000).toISOString();
    const again = await load({ latestCheckpointAt: later });
    expect(again.snapshot().decisions).toEqual([]);
    expect(logs).toEqual([]);
    expect(debugs[0]).toContain("older than the latest checkpoint");
  });
  it("a truncated file is moved aside (not silently empty) and logged once", async () => {
    const st = await load();
    st.addNote("decision", "d");
    st.addNote("learning", "l");
    await st.flush();
    const file = path.join(st.dir, "decisions.json");
    const text = await fs.readFile(file, "utf8");
    await fs.writeFile(file, text.slice(0, text.length / 2));
    const again = await load();
    expect(again.snapshot().decisions).toEqual([]);
    expect(again.snapshot().learnings).toEqual(["l"]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain("decisions.json (invalid JSON");
    expect((await fs.readdir(path.join(st.dir, "stale"))).length).toBe(1);
  });
  it("invalid data shape is stale too, and at most 3 copies are kept per name", async () => {
    const st = await load();
    const file = path.join(st.dir, "resources.json");
    for (let i = 0; i < 5; i++) {
      await fs.writeFile(file, JSON.stringify({ version: 1, session_id: "s1", session_key: "telegram:user1", updated_at: new Date().toISOString(), data: { files_read: "nope" } }));
      await load();
      await new Promise((r) => setTimeout(r, 3));
    }
    expect((await fs.readdir(path.join(st.dir, "stale"))).filter((f) => f.startsWith("resources.")).length).toBe(3);
    expect(logs[0]).toContain("files_read");
  });
  it("reset clears the per-checkpoint data, keeps cursor, first/last user, open failures and the work ledger", async () => {
    const st = await load();
    const msgs = [user("first thing"), assistant(LONG), user("ok")];
    st.captureMessages(msgs);
    st.captureToolResult({ toolName: "read", input: { path: "a" }, content: "ENOENT", isError: true }, "/w");
    st.captureToolResult({ toolName: "write", input: { path: "b" }, content: [], isError: false }, "/w");
    st.addNote("learning", "l1");
    await st.reset();
    const s = st.snapshot();
    expect(s.decisions).toEqual([]);
    expect(s.resources).toEqual({ files_read: [], files_modified: [], tools_used: [] });
    expect(s.errors).toEqual([]);
    expect(s.learnings).toEqual([]);
    expect(s.keyExchanges).toEqual([{ role: "user", gist: "first thing" }]);
    expect(s.firstUser).toBe("first thing");
    expect(s.lastUser).toBe("ok");
    expect(s.work.open_failures.map((f) => f.target)).toEqual(["a"]);
    expect(s.work.files.map((f) => [f.path, f.writes])).toEqual([["b", 1]]);
    expect(s.work.requests).toEqual(["ok", "first thing"]);
    expect(st.dirty).toBe(false);
    st.captureMessages(structuredClone(msgs));
    expect(st.snapshot().decisions).toEqual([]);
    const reloaded = await load();
    expect(reloaded.snapshot()).toEqual(st.snapshot());
  });
});
