/**
 * Issue 28 (4): session keys that are not strings. A host that passes null, undefined, a number
 * or an object gets a no-op and one log line, never a throw on its reply path, through the real
 * entries: the OpenClaw core seams (src/openclaw.ts), the pi extension's registration seam
 * (buildContextManagerExtensionFactories, then the extension's engine lookup), and the OpenClaw
 * plugin (registerContextManagerPlugin → context engine → its lifecycle methods and tool factory).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { buildContextManagerExtensionFactories, onCompactionCompleted, onSessionStarted, readCheckpointForInjection } from "../../src/openclaw.js";
import { sessionForView } from "../../src/agents/pi-extensions/context-manager.js";
import { setContextManagerRuntime } from "../../src/agents/pi-extensions/context-manager-session.js";
import { resolveContextManagerConfig } from "../../src/agents/config/context-manager-config.js";
import { ContextManagerEngine } from "../../src/agents/engine/context-manager-engine.js";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";

const BAD_KEYS: ReadonlyArray<[string, unknown]> = [
  ["null", null],
  ["undefined", undefined],
  ["a number", 42],
  ["an object", { id: "k" }],
  ["an array", ["k"]],
];

function logger() {
  const lines: string[] = [];
  return { lines, logger: { warn: (m: string) => void lines.push(m) } };
}

describe("session keys that are not strings (issue 28, class 4)", () => {
  for (const [what, key] of BAD_KEYS) {
    it(`${what}: the restore seams of src/openclaw.ts do nothing, log one line, never throw`, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "cm-badkey-"));
      try {
        const { lines, logger: log } = logger();
        const queued: string[] = [];
        const enqueue = (t: string) => void queued.push(t);
        const params = { sessionKey: key as string, sessionId: "s1", stateDir, enqueue, logger: log };
        await expect(onSessionStarted(params)).resolves.toBeNull();
        await expect(onSessionStarted(params)).resolves.toBeNull();
        await expect(onCompactionCompleted({ ...params, since: 0 })).resolves.toBeNull();
        await expect(readCheckpointForInjection(key as string, { stateDir, kind: "resume" })).resolves.toBeNull();
        expect(queued).toEqual([]);
        // one line per seam (the second onSessionStarted call adds none), naming what the key was
        expect(lines.filter((l) => l.includes("onSessionStarted"))).toHaveLength(1);
        expect(lines.filter((l) => l.includes("onCompactionCompleted"))).toHaveLength(1);
        expect(lines.join("\n")).toContain("not a string");
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  }

  it("the pi extension's seam: disabled for the run with one line at configuration time; a runtime set anyway gets no engine", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-badkey-pi-"));
    try {
      for (const [, key] of BAD_KEYS) {
        const { lines, logger: log } = logger();
        const sm = SessionManager.inMemory("/work");
        const factories = buildContextManagerExtensionFactories({ cfg: {}, sessionManager: sm, sessionKey: key as string, contextWindowTokens: 10_000, stateDir, logger: log });
        expect(factories).toEqual([]);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain("not a string");
        // a host that sets the runtime itself: the extension's engine lookup is a no-op, not a throw
        const sm2 = SessionManager.inMemory("/work");
        const { lines: lines2, logger: log2 } = logger();
        setContextManagerRuntime(sm2, { sessionKey: key as string, contextWindowTokens: 10_000, stateDir, config: resolveContextManagerConfig({}), hostInjectsRestore: true, logger: log2 });
        const view = { sessionManager: sm2, cwd: "/work", contextWindow: () => 10_000 };
        await expect(sessionForView(view)).resolves.toBeNull();
        await expect(sessionForView(view)).resolves.toBeNull();
        expect(lines2).toHaveLength(1);
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("the engine constructor says what is wrong instead of an opaque TypeError", () => {
    for (const [what, key] of BAD_KEYS) {
      const runtime = { sessionKey: key as string, contextWindowTokens: 1000, stateDir: "/nonexistent", config: resolveContextManagerConfig({}), hostInjectsRestore: true };
      expect(() => new ContextManagerEngine(runtime, { sessionId: "s", sessionFile: null, compactionsSoFar: 0 })).toThrow(`the session key must be a non-empty string, got ${what}`);
    }
  });

  it("the OpenClaw plugin: every lifecycle method and the search tool factory work on, the slot stored under openclaw:<session id>, one line per kind", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "cm-badkey-plugin-"));
    try {
      const { lines, logger: log } = logger();
      let engine: ContextEngineShape | null = null;
      const tools: Array<(ctx: unknown) => unknown> = [];
      const api: PluginApiShape = {
        id: "context-manager",
        pluginConfig: { stateDir },
        logger: log,
        registerContextEngine: (_id, factory) => void (engine = factory({}) as ContextEngineShape),
        registerTool: (factory) => void tools.push(factory as (ctx: unknown) => unknown),
      };
      registerContextManagerPlugin(api, async () => ({ ok: true, compacted: false }) as never);
      expect(engine).not.toBeNull();
      const e = engine! as ContextEngineShape;
      for (const [i, [, key]] of BAD_KEYS.entries()) {
        const messages = [{ role: "user", content: `task ${i}`, timestamp: 1000 + i }] as AgentMessage[];
        const out = await e.assemble({ sessionId: `s${i}`, sessionKey: key as string, messages, tokenBudget: 100_000 } as never);
        expect(out.messages.length).toBeGreaterThanOrEqual(1);
        await e.afterTurn?.({ sessionId: `s${i}`, sessionKey: key as string, messages, prePromptMessageCount: 0 } as never);
        for (const factory of tools) if (typeof factory === "function") expect(() => factory({ sessionKey: key, sessionId: `s${i}` })).not.toThrow();
      }
      // no "assemble failed" / "afterTurn failed" warning with a TypeError: only the key lines
      expect(lines.filter((l) => /TypeError|trim/.test(l))).toEqual([]);
      expect(lines.filter((l) => l.includes("not a string")).length).toBe(BAD_KEYS.length - 1); // undefined is "no key", not a bug
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
