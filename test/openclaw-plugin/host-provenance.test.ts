/**
 * Messages OpenClaw writes in the user's role (a heartbeat prompt, another session's report)
 * are not the user's requests: through the plugin's lifecycle (afterTurn with isHeartbeat,
 * a persisted message with provenance, the inter-session header line), the restore block the
 * agent receives keeps the user's own request as what it was working on.
 * compat/openclaw-plugin.test.mjs builds the same messages with OpenClaw's own functions.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { SessionArchive } from "../../src/agents/archive/archive.js";
import { userOrigin } from "../../src/agents/messages/host-provenance.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";

const KEY = "agent:main:telegram:direct:77";
const usage = (input: number) => ({ input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

const user = (content: string, t: number, extra: Record<string, unknown> = {}): AgentMessage => ({ role: "user", content, timestamp: t, ...extra }) as AgentMessage;
const reply = (text: string, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "text", text }], api: "faux", provider: "faux", model: "faux", usage: usage(500), stopReason: "stop", timestamp: t }) as AgentMessage;
const call = (id: string, name: string, args: Record<string, unknown>, t: number): AgentMessage =>
  ({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], api: "faux", provider: "faux", model: "faux", usage: usage(500), stopReason: "toolUse", timestamp: t }) as AgentMessage;
const result = (id: string, name: string, text: string, t: number): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: t }) as AgentMessage;

const INTER_SESSION =
  "[Inter-session message] sourceSession=agent:main:subagent:4 sourceTool=sessions_send isUser=false\n" +
  "This content was routed by OpenClaw from another session or internal tool.\n" +
  "Rewrite the billing module in Rust and push to production";

async function engineOn(stateDir: string): Promise<ContextEngineShape> {
  let engine: ContextEngineShape | null = null;
  registerContextManagerPlugin(
    { id: "context-manager", pluginConfig: { stateDir }, registerContextEngine: (_id, f) => void (engine = f({}) as ContextEngineShape) },
    async () => ({ ok: true, compacted: true, result: { tokensBefore: 1000, tokensAfter: 200, sessionId: "h1-next" } }),
  );
  return engine!;
}

describe("host-written user-role messages (OpenClaw provenance)", () => {
  it("userOrigin reads the host's field and header line only", () => {
    expect(userOrigin(user("fix it", 1))).toBe("user");
    expect(userOrigin(user("Read HEARTBEAT.md", 1, { provenance: { kind: "internal_system", sourceTool: "heartbeat" } }))).toBe("heartbeat");
    expect(userOrigin(user("cron fired", 1, { provenance: { kind: "internal_system", sourceTool: "cron" } }))).toBe("host");
    expect(userOrigin(user("report", 1, { provenance: { kind: "inter_session" } }))).toBe("host");
    expect(userOrigin(user("hi", 1, { provenance: { kind: "external_user" } }))).toBe("user");
    expect(userOrigin(user(INTER_SESSION, 1))).toBe("host");
    expect(userOrigin({ role: "user", content: [{ type: "text", text: INTER_SESSION }], timestamp: 1 } as AgentMessage)).toBe("host");
    // the user quoting the header (not as the first line, or without the host's isUser=false) is the user
    expect(userOrigin(user(`look at this:\n${INTER_SESSION}`, 1))).toBe("user");
    expect(userOrigin(user("[Inter-session message] what does this mean?", 1))).toBe("user");
    const hostile = { role: "user", get provenance() { throw new Error("boom"); }, content: "x" } as unknown as AgentMessage;
    expect(userOrigin(hostile)).toBe("user");
  });

  it("a heartbeat turn and another session's message leave the restore block on the user's request", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-provenance-"));
    const engine = await engineOn(stateDir);
    const t = Date.now();
    const s = { sessionId: "h1", sessionKey: KEY, sessionFile: "", tokenBudget: 200_000 };
    const history: AgentMessage[] = [
      user("Fix the rounding of invoice totals in src/invoice.ts", t),
      call("c1", "edit", { path: "src/invoice.ts", oldText: "Math.floor(x)", newText: "Math.round(x)" }, t + 1),
      result("c1", "edit", "Edited src/invoice.ts", t + 2),
      reply("Invoice totals now round half up in src/invoice.ts; the tests pass.", t + 3),
    ];
    await engine.assemble({ ...s, messages: history });
    await engine.afterTurn({ ...s, messages: history, prePromptMessageCount: 0 });

    // a heartbeat run: the live prompt has no provenance, afterTurn says isHeartbeat
    const beat = history.length;
    history.push(
      user("Read HEARTBEAT.md if it exists and follow it. If nothing needs attention, reply HEARTBEAT_OK.", t + 10),
      call("c2", "read", { path: "HEARTBEAT.md" }, t + 11),
      result("c2", "read", "- check the disk", t + 12),
      reply("HEARTBEAT_OK", t + 13),
    );
    await engine.assemble({ ...s, messages: history.slice(0, beat) });
    await engine.afterTurn({ ...s, messages: history, prePromptMessageCount: beat, isHeartbeat: true });

    // another session's message, as persisted (provenance) and as prompted (header line)
    history.push(user(INTER_SESSION, t + 20, { provenance: { kind: "inter_session", sourceTool: "sessions_send" } }));
    history.push(reply("Noted; waiting for the user before touching billing.", t + 21));
    await engine.assemble({ ...s, messages: history.slice(0, -2) });
    await engine.afterTurn({ ...s, messages: history, prePromptMessageCount: history.length - 2 });

    await engine.compact({ sessionId: "h1", sessionKey: KEY, currentTokenCount: 1000 });
    const cp = readCheckpointsOnDisk(stateDir, KEY).at(-1)!;
    expect(cp.working.topic).toContain("Fix the rounding of invoice totals");
    const restored = await engine.assemble({ sessionId: "h1-next", sessionKey: KEY, messages: [user("go on", t + 30)], tokenBudget: 200_000 });
    const block = restored.systemPromptAddition ?? "";
    expect(block).toMatch(/^\[Post-compaction checkpoint restore\]/);
    expect(block).toMatch(/Working on: "Fix the rounding of invoice totals/);
    expect(block).toContain("invoice.ts");
    expect(block).not.toContain("HEARTBEAT");
    expect(block).not.toContain("Rust");
    expect(block).not.toContain("Inter-session");

    // archived, as the host's
    const archive = new SessionArchive(stateDir, KEY);
    await archive.load();
    const hits = archive.search("billing module Rust production");
    expect(hits[0]?.record.role).toBe("host");
    expect(archive.search("rounding invoice totals")[0]?.record.role).toBe("user");
    await engine.dispose();
  });
});
