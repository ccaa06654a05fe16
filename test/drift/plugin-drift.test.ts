/**
 * The OpenClaw context-engine plugin records the workspace the factory context names
 * (`workspaceDir`) with its 80% checkpoint, and the resume block on /new reports what moved.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { DRIFT_EXTRA_TITLE } from "../../src/agents/drift/render.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { type GitFixture, gitFixture } from "./git-fixture.js";

const KEY = "agent:main:telegram:direct:17";
const user = (text: string, t: number) => ({ role: "user", content: text, timestamp: t }) as AgentMessage;
const toolTurn = (t: number) =>
  ({
    role: "assistant",
    content: [{ type: "toolCall", id: "c1", name: "edit", arguments: { path: "src/parse.ts", edits: [] } }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: { input: 1700, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 1710, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: t,
  }) as AgentMessage;
const toolResult = (t: number) =>
  ({ role: "toolResult", toolCallId: "c1", toolName: "edit", content: [{ type: "text", text: "ok" }], isError: false, timestamp: t }) as AgentMessage;

let f: GitFixture | null = null;
afterEach(() => f?.cleanup());

describe("OpenClaw plugin: workspace drift", () => {
  it("records workspaceDir with the 80% checkpoint; /new's resume block reports a branch switch", async () => {
    f = gitFixture({ "src/parse.ts": "export const parse = 1;\n" }, "cm-plugin-drift-");
    f.write("src/parse.ts", "export const parse = 2;\n");
    const stateDir = mkdtempSync(join(f.root, "state-"));
    let engine: ContextEngineShape | null = null;
    registerContextManagerPlugin(
      { id: "context-manager", pluginConfig: { stateDir }, registerContextEngine: (_id, factory) => void (engine = factory({ workspaceDir: f!.dir }) as ContextEngineShape) },
      async () => ({ ok: true, compacted: false }),
    );
    const t = Date.now();
    const history = [user("Fix the parser in src/parse.ts", t), toolTurn(t + 1), toolResult(t + 2)];
    await engine!.afterTurn({ sessionId: "s1", sessionKey: KEY, sessionFile: "", messages: history, prePromptMessageCount: 0, tokenBudget: 2000 });
    const cp = readCheckpointsOnDisk(stateDir, KEY).at(-1)!;
    expect(cp.meta.trigger).toBe("auto-80pct");
    expect(cp.workspace?.cwd).toBe(f.dir);
    expect(cp.workspace?.git?.branch).toBe("main");

    // (this route captures files from tool_result events only, so the list may be empty: git still tells)
    f.git("checkout", "-q", "-b", "other");
    const fresh = await engine!.assemble({ sessionId: "s2", sessionKey: KEY, messages: [user("Hi again", t + 9)], tokenBudget: 2000 });
    expect(fresh.systemPromptAddition).toContain(DRIFT_EXTRA_TITLE);
    expect(fresh.systemPromptAddition).toContain('- "git: branch main -> branch other; tree dirty"');
    await engine!.dispose();
  });
});
