/**
 * Aged offload on the OpenClaw plugin route: assemble returns the history with consumed
 * mid-size tool results as handle + preview (stashed after the assemble that first saw them
 * old, off the request path), the artifact_fetch tool is registered through api.registerTool
 * and reads the original back; without registerTool nothing is aged (no way to fetch).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";

const SECRET = "ghp_Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii8Oo9Pp0Aa1Ss2";
const KEY = "agent:main:cli:direct:1";
const MARKER = "[tool output stored off the prompt:";

const log = (tag: string) =>
  `${Array.from({ length: 120 }, (_, i) => (i === 60 ? `${tag} NEEDLE middle` : i === 119 ? `token=${SECRET}` : `${tag} line ${i} fine`)).join("\n")}\n`;

function history(): AgentMessage[] {
  const t = Date.now();
  const call = (id: string, n: number): AgentMessage =>
    ({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command: `cat ${id}.log` } }], api: "faux", provider: "faux", model: "faux", stopReason: "toolUse", timestamp: t + n }) as unknown as AgentMessage;
  const result = (id: string, text: string, n: number, isError = false): AgentMessage =>
    ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text }], isError, timestamp: t + n }) as AgentMessage;
  return [
    { role: "user", content: "check the logs", timestamp: t } as AgentMessage,
    call("a", 1),
    result("a", log("AAA"), 2),
    call("b", 3),
    result("b", log("BBB"), 4, true),
    call("c", 5),
    result("c", log("CCC"), 6),
  ];
}

async function setup(withTool: boolean) {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-ocplugin-aged-"));
  let engine: ContextEngineShape | null = null;
  const tools: Array<{ name: string; execute: (...a: unknown[]) => Promise<{ content: Array<{ text: string }> }> }> = [];
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir, offload: true, offloadAgeTurns: 2 },
    registerContextEngine: (_id, factory) => {
      engine = factory({}) as ContextEngineShape;
    },
    ...(withTool ? { registerTool: (t: unknown) => void tools.push(t as (typeof tools)[number]) } : {}),
  };
  registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }));
  return { stateDir, engine: engine!, tools };
}

const texts = (ms: AgentMessage[]) => ms.filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m.content));
const tick = () => new Promise((r) => setImmediate(r));

describe("OpenClaw plugin: aged offload", () => {
  it("ages a consumed result from the next assemble on; errors and the newest rounds stay whole; the tool fetches it", async () => {
    const { engine, tools, stateDir } = await setup(true);
    // tool objects (context_search comes as a per-run factory function, see context-engine.test.ts)
    expect(tools.filter((t) => typeof t === "object").map((t) => t.name)).toEqual(["artifact_fetch"]);
    const h = history();
    // the session as it starts (nothing old yet), then with three rounds
    await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h.slice(0, 1), tokenBudget: 200_000 });
    const first = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    expect(texts(first.messages)[0]).toContain("AAA NEEDLE middle"); // judged now, stashed after this call
    await tick();
    const second = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    const [a = "", b = "", c = ""] = texts(second.messages);
    expect(a).toContain(MARKER);
    expect(a).not.toContain("NEEDLE");
    expect(a).not.toContain(SECRET);
    expect(b).toContain("BBB NEEDLE middle"); // error
    expect(c).toContain("CCC NEEDLE middle"); // newest round
    expect(JSON.stringify(h[2])).toContain("AAA NEEDLE middle"); // the host's history is untouched
    const handle = /ocm_artifact:v1:sha256:[0-9a-f]{64}/.exec(a)![0];
    const got = await tools[0]!.execute("t1", { handle, mode: "grep", pattern: "NEEDLE" });
    expect(got.content[0]!.text).toContain("AAA NEEDLE middle");
    const blobs = readdirSync(join(stateDir, "context", "artifacts"), { recursive: true }) as string[];
    expect(blobs.some((x) => x.endsWith(".txt"))).toBe(true);
    for (const f of blobs.filter((x) => x.endsWith(".txt"))) expect(readFileSync(join(stateDir, "context", "artifacts", f), "utf8")).not.toContain(SECRET);
  });

  it("ages a succeeded call's long arguments (catch-up: never seen at tool_result); a failed call's stay whole", async () => {
    const { engine, tools } = await setup(true);
    const t = Date.now();
    const content = `// generated\n${log("WWW")}`;
    const msg = (m: object) => m as unknown as AgentMessage;
    const call = (id: string, name: string, args: object, n: number) =>
      msg({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], api: "faux", provider: "faux", model: "faux", stopReason: "toolUse", timestamp: t + n });
    const result = (id: string, name: string, text: string, isError: boolean, n: number) =>
      msg({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: t + n });
    const h = [
      msg({ role: "user", content: "write it", timestamp: t }),
      call("w", "write", { path: "gen.ts", content }, 1),
      result("w", "write", "Successfully wrote gen.ts", false, 2),
      call("e", "edit", { path: "x.ts", oldText: log("OLD"), newText: log("NEW") }, 3),
      result("e", "edit", "Could not find the exact text", true, 4),
      call("b1", "bash", { command: "echo 1" }, 5),
      result("b1", "bash", "1", false, 6),
      call("b2", "bash", { command: "echo 2" }, 7),
      result("b2", "bash", "2", false, 8),
    ];
    const argsOf = (ms: AgentMessage[]) => ms.filter((m) => m.role === "assistant").map((m) => (m.content as Array<{ arguments: Record<string, string> }>)[0]!.arguments);
    await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h.slice(0, 1), tokenBudget: 200_000 });
    const first = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    expect(argsOf(first.messages)[0]!.content).toBe(content); // judged now, stashed after this call
    await tick();
    const second = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    const [w, e] = argsOf(second.messages);
    expect(w!.path).toBe("gen.ts");
    expect(w!.content).toMatch(/^\[argument stored off the prompt: /);
    expect(w!.content).not.toContain(SECRET);
    expect(e!.oldText).toBe(log("OLD")); // failed: whole
    expect(JSON.stringify(h[1])).toContain("WWW NEEDLE middle"); // the host's history is untouched
    const handle = /ocm_artifact:v1:sha256:[0-9a-f]{64}/.exec(w!.content!)![0];
    const got = await tools[0]!.execute("t1", { handle, mode: "grep", pattern: "NEEDLE" });
    expect(got.content[0]!.text).toContain("WWW NEEDLE middle");
  });

  it("a session this process has not seen (a restarted gateway): its old results are aged from the first assemble", async () => {
    const { engine, tools } = await setup(true);
    const h = history();
    const key = `${KEY}:restarted`;
    const first = await engine.assemble({ sessionId: "s9", sessionKey: key, messages: h, tokenBudget: 200_000 });
    const [a = "", b = "", c = ""] = texts(first.messages);
    expect(a).toContain(MARKER);
    expect(a).not.toContain("NEEDLE");
    expect(b).toContain("BBB NEEDLE middle"); // error
    expect(c).toContain("CCC NEEDLE middle"); // newest round
    const handle = /ocm_artifact:v1:sha256:[0-9a-f]{64}/.exec(a)![0];
    const got = await tools[0]!.execute("t1", { handle, mode: "grep", pattern: "NEEDLE" });
    expect(got.content[0]!.text).toContain("AAA NEEDLE middle");
    // and the next assemble sends the same prompt (no flip-flop)
    const second = await engine.assemble({ sessionId: "s9", sessionKey: key, messages: h, tokenBudget: 200_000 });
    expect(texts(second.messages)).toEqual(texts(first.messages));
  });

  it("without api.registerTool nothing is aged", async () => {
    const { engine } = await setup(false);
    const h = history();
    await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    await tick();
    const second = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: h, tokenBudget: 200_000 });
    expect(texts(second.messages)[0]).toContain("AAA NEEDLE middle");
  });
});
