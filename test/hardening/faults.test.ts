/**
 * Disk faults never break a session: with the state dir on a full disk (ENOSPC), read-only
 * (EACCES / EROFS), failing (EIO), blocked by a file where the directory must be, or deleted
 * mid-session, every turn and compaction still succeeds, each failure kind is logged ONCE
 * (not per event), and capture resumes when the fault clears.
 * Tests run as root (chmod does not stop root), so faults are injected through FsOps.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { getContextManagerRuntime } from "../../src/agents/pi-extensions/context-manager-session.js";
import { checkpointSessionDir, stateSessionDir } from "../../src/infra/session-dir.js";
import { STATE_FILE_NAMES } from "../../src/agents/state/state-files.js";
import { knowledgeSettled } from "../../src/agents/engine/archive-hooks.js";
import { filler, makeHost, reply, type Host } from "../helpers/host.js";
import {
  assistantMsg,
  compactEvent,
  faultyFs,
  makeEngine,
  removeDirs,
  tempDir,
  toolCallMsg,
  toolResultMsg,
  type FaultCode,
  usageAt,
  userMsg,
} from "./helpers.js";

const KEY = "agent:main:test:direct:1";
const dirs: string[] = [];
afterEach(() => removeDirs(dirs));

/** "[context-manager] <kind> failed (...)" -> kind */
function kindsOf(warnings: string[]): string[] {
  return warnings.map((w) => /\] (.+?) failed \(/.exec(w)?.[1] ?? w);
}

function expectOneLinePerKind(warnings: string[]): void {
  const kinds = kindsOf(warnings);
  expect(new Set(kinds).size, warnings.join("\n")).toBe(kinds.length);
  for (const w of warnings) expect(w).toMatch(/^\[context-manager\] .+ failed \((E[A-Z]+|Error): .+\); the agent continues/);
}

/** A few turns: user text, a read tool call + result, an answer; at `fraction` utilization. */
async function runTurns(
  t: ReturnType<typeof makeEngine>,
  messages: AgentMessage[],
  label: string,
  turns: number,
  fraction: number,
): Promise<void> {
  for (let i = 0; i < turns; i++) {
    const id = `${label}-${i}`;
    messages.push(userMsg(`${label} question ${i}`));
    const d1 = await t.engine.onContext(messages, usageAt(fraction + i * 0.01));
    expect(d1.reading.tokens).toBeGreaterThan(0);
    messages.push(toolCallMsg(id, "read", { path: `${label}-${i}.ts` }));
    await t.engine.onToolResult({ toolName: "read", toolCallId: id, input: { path: `${label}-${i}.ts` }, content: [{ type: "text", text: "x" }], isError: false }, "/ws");
    messages.push(toolResultMsg(id, "read", "file body"));
    await t.engine.onContext(messages, usageAt(fraction + i * 0.01 + 0.005));
    messages.push(assistantMsg([{ type: "text", text: `${label} answer ${i}` }]));
    await t.engine.flushNow(); // agent_end: the debounced state flush is awaited
  }
}

describe("engine under write faults", () => {
  for (const code of ["ENOSPC", "EACCES", "EIO", "EROFS"] as FaultCode[]) {
    it(`${code}: turns and the compaction checkpoint never throw, one log line per kind, capture resumes`, async () => {
      const stateDir = tempDir("cm-fault-");
      dirs.push(stateDir);
      const ffs = faultyFs();
      ffs.fault = code;
      const t = makeEngine({ stateDir, fs: ffs });
      const messages: AgentMessage[] = [];
      // 12 turns, above 80%: the gauge still shows, no checkpoint can be written
      await runTurns(t, messages, "during", 12, 0.82);
      const d = await t.engine.onContext(messages, usageAt(0.95));
      expect(d.messages?.at(-1)).toMatchObject({ role: "custom", customType: "context-gauge" });
      expect(d.checkpoint).toBeNull();
      expect(await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws")).toBeNull();
      expect(Object.values(ffs.failures).reduce((a, b) => a + b, 0)).toBeGreaterThan(20);
      expectOneLinePerKind(t.warnings);
      expect(t.warnings.length).toBeGreaterThan(0);
      expect(t.warnings.length).toBeLessThanOrEqual(4);
      expect(readdirSync(stateDir)).toEqual([]); // nothing half-written

      // the fault clears: the next checkpoint holds what is captured after recovery
      ffs.fault = null;
      const before = t.warnings.length;
      await runTurns(t, messages, "after", 2, 0.5);
      const cp = await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws");
      expect(cp).not.toBeNull();
      expect(cp!.resources.files_read).toEqual(expect.arrayContaining(["after-0.ts", "after-1.ts"]));
      expect(cp!.thread.summary).toContain("after question 1");
      expect(t.warnings.length).toBe(before); // recovery is silent
      expect(readdirSync(stateSessionDir(stateDir, KEY)).filter((f) => f.endsWith(".json")).length).toBe(STATE_FILE_NAMES.length);
      expect(existsSync(join(checkpointSessionDir(stateDir, KEY), "cp_001.yaml"))).toBe(true);
    });
  }

  it("failing reads too (EIO on every call): no throw, capture resumes afterwards", async () => {
    const stateDir = tempDir("cm-fault-");
    dirs.push(stateDir);
    const ffs = faultyFs();
    ffs.fault = "EIO";
    ffs.failReads = true;
    const t = makeEngine({ stateDir, fs: ffs });
    const messages: AgentMessage[] = [];
    await runTurns(t, messages, "during", 5, 0.85);
    expect(await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws")).toBeNull();
    expectOneLinePerKind(t.warnings);
    ffs.fault = null;
    ffs.failReads = false;
    await runTurns(t, messages, "after", 1, 0.5);
    const cp = await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws");
    expect(cp?.resources.files_read).toContain("after-0.ts");
  });

  it("a fault that comes and goes logs again only after it had cleared", async () => {
    const stateDir = tempDir("cm-fault-");
    dirs.push(stateDir);
    const ffs = faultyFs();
    const t = makeEngine({ stateDir, fs: ffs });
    const messages: AgentMessage[] = [];
    await runTurns(t, messages, "ok", 2, 0.3);
    expect(t.warnings).toEqual([]);
    ffs.fault = "ENOSPC";
    await runTurns(t, messages, "full", 5, 0.3);
    expect(kindsOf(t.warnings)).toEqual(["state write"]);
    ffs.fault = null;
    await runTurns(t, messages, "ok2", 1, 0.3);
    ffs.fault = "ENOSPC";
    await runTurns(t, messages, "full2", 5, 0.3);
    expect(kindsOf(t.warnings)).toEqual(["state write", "state write"]);
  });

  it("state dir deleted between turns (rm -rf): recreated silently, nothing lost from memory", async () => {
    const stateDir = tempDir("cm-fault-");
    dirs.push(stateDir);
    const t = makeEngine({ stateDir });
    const messages: AgentMessage[] = [];
    await runTurns(t, messages, "before", 3, 0.5);
    expect(await t.engine.onBeforeCompact(compactEvent(60_000, { messages }), "/ws")).not.toBeNull();
    // between turns: the checkpoint's knowledge records (written in the background) are on disk
    await knowledgeSettled();
    rmSync(join(stateDir, "context"), { recursive: true, force: true });
    await runTurns(t, messages, "after", 2, 0.5);
    rmSync(stateDir, { recursive: true, force: true });
    await runTurns(t, messages, "gone", 1, 0.5);
    const cp = await t.engine.onBeforeCompact(compactEvent(60_000, { messages }), "/ws");
    expect(cp).not.toBeNull();
    expect(cp!.resources.files_read).toEqual(expect.arrayContaining(["after-0.ts", "after-1.ts", "gone-0.ts"]));
    expect(readdirSync(stateSessionDir(stateDir, KEY)).filter((f) => f.endsWith(".json")).sort()).toEqual(
      STATE_FILE_NAMES.map((n) => `${n}.json`).sort(),
    );
    expect(t.warnings).toEqual([]);
  });

  it("a file where the state directory must be: turns succeed, one line per kind, resumes once it is gone", async () => {
    const root = tempDir("cm-fault-");
    dirs.push(root);
    const stateDir = join(root, "state");
    writeFileSync(stateDir, "not a directory");
    const t = makeEngine({ stateDir });
    const messages: AgentMessage[] = [];
    await runTurns(t, messages, "blocked", 6, 0.85);
    expect(await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws")).toBeNull();
    expectOneLinePerKind(t.warnings);
    expect(t.warnings.join("\n")).toMatch(/ENOTDIR|EEXIST/);
    rmSync(stateDir);
    await runTurns(t, messages, "free", 1, 0.5);
    const cp = await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws");
    expect(cp?.resources.files_read).toContain("free-0.ts");
    expect(existsSync(join(stateSessionDir(stateDir, KEY), "thread.json"))).toBe(true);
  });
});

// Node's `mkdir(..., { recursive: true })` never settles under /proc (ENOENT, parent exists, retry):
// a state dir configured there must fail like any unwritable dir, not hang every turn.
describe.skipIf(!existsSync("/proc/self"))("a state dir under /proc", () => {
  it("turns and the compaction checkpoint complete, one line per kind, nothing thrown", async () => {
    const t = makeEngine({ stateDir: "/proc/self/cm-state" });
    const messages: AgentMessage[] = [];
    await runTurns(t, messages, "proc", 4, 0.85);
    expect(await t.engine.onBeforeCompact(compactEvent(90_000, { messages }), "/ws")).toBeNull();
    expectOneLinePerKind(t.warnings);
    expect(t.warnings.join("\n")).toMatch(/ENOENT/);
  });
});

describe("real session under write faults", () => {
  let host: Host | undefined;
  afterEach(() => host?.cleanup());

  it("turns, tool calls and /compact succeed on a full disk; the next compaction after recovery restores", async () => {
    const ffs = faultyFs();
    // loaded before the context manager: hands it the faulty FsOps before its engine exists
    const injectFs: ExtensionFactory = (pi) => {
      const set = (_e: unknown, ctx: { sessionManager: object }) => {
        const rt = getContextManagerRuntime(ctx.sessionManager);
        if (rt) rt.fs = ffs;
      };
      pi.on("session_start", set);
      pi.on("context", set);
    };
    host = await makeHost({ contextWindow: 16_000, extraExtensionFactories: [injectFs] });
    host.write("a.ts", "export const a = 1;\n");
    const key = "agent:main:telegram:direct:7";
    ffs.fault = "ENOSPC";
    host.agent.queue(
      reply.tools(["read", { path: "a.ts" }], ["read", { path: "missing.ts" }]),
      reply.tools(["write", { path: "b.ts", content: "export const b = 2;\n" }]),
      reply.tools(["bash", { command: "ls" }]),
      reply.text("done during the fault"),
    );
    const r1 = await host.runner.handleInbound(key, "Work while the disk is full");
    expect(r1.command).toBe("prompt");
    const cmWarnings = host.warnings.filter((w) => w.startsWith("[context-manager]"));
    expect(cmWarnings.length).toBeGreaterThan(0);
    expectOneLinePerKind(cmWarnings);
    expect(host.warnings.filter((w) => w.includes("extension error"))).toEqual([]);

    host.agent.queue(reply.text(filler("long answer", 3000)));
    await host.runner.handleInbound(key, filler("more", 2000));
    const c1 = await host.runner.handleInbound(key, "/compact");
    expect(c1.compactions.map((c) => c.trigger)).toEqual(["manual"]);
    expect(c1.compactions[0]!.restore).toBeNull(); // no checkpoint could be written
    expect(host.warnings.filter((w) => w.includes("extension error") || w.includes("/compact failed"))).toEqual([]);

    ffs.fault = null;
    host.agent.queue(reply.tools(["read", { path: "a.ts" }]), reply.text("read after recovery"));
    await host.runner.handleInbound(key, "After recovery: read a.ts again");
    const c2 = await host.runner.handleInbound(key, "/compact");
    const restore = c2.compactions[0]!.restore;
    expect(restore).not.toBeNull();
    expect(restore!.checkpoint.thread.summary).toContain("After recovery");
    expect(restore!.checkpoint.resources.files_read).toContain("a.ts");
  });
});
