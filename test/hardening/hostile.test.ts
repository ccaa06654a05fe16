/**
 * Hostile and malformed messages into the `context` and `tool_result` handlers: nothing
 * throws, each call finishes in bounded time (a generous 10 s: not a timing test), and what
 * can be captured still is. Each case runs once, on a fresh engine over a temp dir.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageCapture } from "../../src/agents/state/message-capture.js";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { type Host, makeHost, reply } from "../helpers/host.js";
import {
  assistantMsg,
  compactEvent,
  makeEngine,
  nextTs,
  readAllFiles,
  removeDirs,
  tempDir,
  timed,
  toolCallMsg,
  toolResultMsg,
  usageAt,
  userMsg,
} from "./helpers.js";

// "bounded time" is the test timeout (test/helpers/timeouts.ts): a pathological pass (a cubic
// regex, a quadratic copy) runs for hours on these inputs and fails it; nothing compares
// elapsed time, which a loaded machine would make flaky.
const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

function engine() {
  const stateDir = tempDir("cm-hostile-");
  dirs.push(stateDir);
  return makeEngine({ stateDir, window: 100_000 });
}

function deep(depth: number): unknown {
  let v: unknown = { leaf: "x" };
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v, n: i } : [v, i];
  return v;
}

function deepArray(depth: number): unknown {
  let v: unknown = ["leaf"];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function circular(): Record<string, unknown> {
  const o: Record<string, unknown> = { path: "loop.ts", name: "loop" };
  o.self = o;
  o.list = [o, { back: o }];
  return o;
}

const throwingGetter = Object.defineProperty({}, "path", {
  enumerable: true,
  get() {
    throw new Error("getter boom");
  },
});

const HOSTILE_MESSAGES: Array<[string, () => AgentMessage[]]> = [
  ["user content as a string", () => [userMsg("plain string content")]],
  ["user content as a number / object / null", () => [userMsg(42), userMsg({ text: "obj" }), userMsg(null)]],
  ["assistant content as a string", () => [assistantMsg("assistant string content")]],
  ["assistant content missing / null / number", () => [assistantMsg(undefined), assistantMsg(null), assistantMsg(7)]],
  ["unknown block types and null blocks", () => [assistantMsg([{ type: "hologram", data: 1 }, null, 5, "str", { type: "text" }, { type: "text", text: 12 }])]],
  ["assistant without usage / null usage / garbage usage", () => [
    assistantMsg([{ type: "text", text: "a" }], { usage: undefined }),
    assistantMsg([{ type: "text", text: "b" }], { usage: null }),
    assistantMsg([{ type: "text", text: "c" }], { usage: { input: "many", totalTokens: {} } }),
  ]],
  ["missing role / timestamp / unknown role", () => [
    { content: "no role" } as unknown as AgentMessage,
    { role: "user", content: "no ts" } as unknown as AgentMessage,
    { role: "wizard", content: "?", timestamp: nextTs() } as unknown as AgentMessage,
    { role: "custom", customType: { x: 1 }, content: 1, timestamp: nextTs() } as unknown as AgentMessage,
  ]],
  ["null / undefined / primitive messages in the array", () => [null, undefined, 3, "user", userMsg("after junk")] as unknown as AgentMessage[]],
  ["numbers and objects where strings are expected", () => [
    assistantMsg([{ type: "toolCall", id: { o: 1 }, name: 123, arguments: "not-an-object" }], { stopReason: { bad: true }, errorMessage: 99, responseId: [] }),
    { role: "toolResult", toolCallId: Object.create(null), toolName: 5, content: { text: "x" }, isError: "yes", timestamp: nextTs() } as unknown as AgentMessage,
    assistantMsg([{ type: "text", text: "ok" }], { stopReason: 5 }),
  ]],
  ["deeply nested tool arguments (depth 10,000)", () => [toolCallMsg("deep", "custom", deep(10_000)), toolCallMsg("deeparr", "custom", deepArray(10_000))]],
  ["circular tool arguments and throwing getters", () => [toolCallMsg("circ", "custom", circular()), toolCallMsg("getter", "custom", throwingGetter)]],
  ["a 10 MB user message, assistant text and tool result", () => {
    const big = "x".repeat(5_000_000) + "\n" + "y ".repeat(2_500_000);
    return [userMsg(big), assistantMsg([{ type: "text", text: big }]), toolResultMsg("big", "read", big)];
  }],
  ["a 10 MB tool-call argument", () => [toolCallMsg("bigarg", "write", { path: "big.txt", content: "z".repeat(10_000_000) }), toolCallMsg("bigcmd", "bash", { command: "q".repeat(10_000_000) }), toolCallMsg("bigjson", "custom", { blob: "w".repeat(10_000_000) })]],
];

describe("context handler: hostile messages", () => {
  for (const [name, build] of HOSTILE_MESSAGES) {
    it(`${name}: no throw, bounded time, capture continues after it`, async () => {
      const t = engine();
      const messages: AgentMessage[] = [userMsg("first request"), ...build()];
      const { value } = await timed(() => t.engine.onContext(messages, usageAt(0.85)));
      expect(value.reading.utilization).toBeCloseTo(0.85);
      // later, well-formed messages are still captured and checkpointed
      messages.push(userMsg("follow-up after the hostile input"), toolCallMsg("ok1", "read", { path: "after.ts" }));
      await t.engine.onToolResult({ toolName: "read", input: { path: "after.ts" }, content: [{ type: "text", text: "ok" }], isError: false }, "/ws");
      await t.engine.onContext(messages, usageAt(0.86));
      const cp = await t.engine.onBeforeCompact(compactEvent(95_000, { messages, turnPrefixMessages: build().slice(-2) }), "/ws");
      expect(cp).not.toBeNull();
      expect(cp!.thread.summary).toContain("follow-up after the hostile input");
      expect(cp!.resources.files_read).toContain("after.ts");
      // every persisted string is bounded: no 10 MB value made it to disk
      for (const [p, text] of readAllFiles(t.stateDir)) expect(text.length, p).toBeLessThan(64 * 1024);
      // malformed messages may log one "message capture" line, nothing else
      for (const w of t.warnings) expect(w).toMatch(/message capture failed/);
    });
  }

  it("100,000 messages in one call: bounded time, cursor only processes them once", async () => {
    const t = engine();
    const messages: AgentMessage[] = [];
    for (let i = 0; i < 25_000; i++) {
      messages.push(userMsg(`q${i}`), toolCallMsg(`c${i}`, "read", { path: `f${i % 500}.ts` }), toolResultMsg(`c${i}`, "read", "ok"), assistantMsg([{ type: "text", text: `a${i}` }]));
    }
    const processed = vi.spyOn(MessageCapture.prototype as unknown as { processMessage: (m: AgentMessage) => void }, "processMessage");
    const first = await timed(() => t.engine.onContext(messages, usageAt(0.5)));
    expect(processed).toHaveBeenCalledTimes(100_000);
    messages.push(userMsg("one more"));
    processed.mockClear();
    const second = await timed(() => t.engine.onContext(messages, usageAt(0.5)));
    // the cursor: the next call processes the one new message, not the 100,000 before it
    expect(processed).toHaveBeenCalledTimes(1);
    processed.mockRestore();
    const cp = await t.engine.onBeforeCompact(compactEvent(50_000, { messages: [] }), "/ws");
    expect(cp!.thread.summary).toBe("q0 ... one more");
    console.log(`[hostile] 100,000 messages: first call ${first.ms.toFixed(0)} ms, next call ${second.ms.toFixed(0)} ms`);
  });
});

describe("tool_result handler: hostile events", () => {
  const EVENTS: Array<[string, () => unknown]> = [
    ["content as a string", () => ({ toolName: "read", input: { path: "a.ts" }, content: "text", isError: true })],
    ["content null / number / object", () => ({ toolName: "read", input: { path: "a.ts" }, content: { nope: 1 }, isError: true })],
    ["unknown blocks", () => ({ toolName: "read", input: { path: "a.ts" }, content: [null, 1, { type: "image" }, { type: "text", text: null }], isError: true })],
    ["missing fields", () => ({})],
    ["non-string paths", () => ({ toolName: "edit", input: { path: 42, file_path: { p: 1 }, file: ["x"] }, content: [], isError: false })],
    ["non-string tool name and command", () => ({ toolName: { n: 1 }, input: { command: 12 }, content: [], isError: false })],
    ["input null / string / array", () => ({ toolName: "bash", input: "rm -rf /", content: [], isError: false })],
    ["circular input and content", () => {
      const c = circular();
      return { toolName: "read", input: c, content: [c], isError: true };
    }],
    ["throwing getter in input", () => ({ toolName: "read", input: throwingGetter, content: [], isError: false })],
    ["deep input (depth 10,000)", () => ({ toolName: "custom", input: deep(10_000), content: [{ type: "text", text: "e" }], isError: true })],
    ["a 10 MB result", () => ({ toolName: "read", input: { path: "huge.log" }, content: [{ type: "text", text: "E".repeat(10_000_000) }], isError: true })],
    ["a 10 MB path and error string", () => ({ toolName: "read", input: { path: "p".repeat(10_000_000) }, content: "e\n".repeat(5_000_000), isError: true })],
  ];
  for (const [name, build] of EVENTS) {
    it(`${name}: no throw, bounded time`, async () => {
      const t = engine();
      await timed(() => t.engine.onToolResult(build() as never, "/ws"));
      await t.engine.onToolResult({ toolName: "read", input: { path: "fine.ts" }, content: [], isError: false }, "/ws");
      const cp = await t.engine.onBeforeCompact(compactEvent(50_000), "/ws");
      expect(cp!.resources.files_read).toContain("fine.ts");
      for (const [p, text] of readAllFiles(t.stateDir)) expect(text.length, p).toBeLessThan(64 * 1024);
    });
  }
});

describe("hostile input through a real session", () => {
  let host: Host | undefined;
  afterEach(() => host?.cleanup());

  it("huge, deep and odd tool calls from the model: the turn and /compact succeed", async () => {
    host = await makeHost({ contextWindow: 16_000 });
    const key = "agent:main:telegram:direct:hostile";
    host.agent.queue(
      reply.tools(["read", { path: 42 as unknown as string }], ["custom_unknown_tool", deep(200) as Record<string, unknown>]),
      reply.tools(["bash", { command: `echo ${"x".repeat(20_000)} >/dev/null` }]),
      reply.text("\u2028\u0000odd reply\u202e"),
    );
    const r = await host.runner.handleInbound(key, "go\u0000\u2029");
    expect(r.command).toBe("prompt");
    const c = await host.runner.handleInbound(key, "/compact");
    expect(c.compactions[0]!.restore).not.toBeNull();
    expect(host.warnings.filter((w) => w.includes("extension error"))).toEqual([]);
  });
});
