/**
 * The OpenClaw context-engine plugin, driven through its registration the way
 * OpenClaw's registry calls it (register → factory → lifecycle methods), with
 * real checkpoints in a temp dir. The runtime compaction it delegates to lives
 * in OpenClaw; here a recording delegate stands in for it (the real one runs in
 * the compat suite, compat/).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import plugin from "../../src/openclaw-plugin/index.js";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { CompactParams, CompactResult, ContextEngineShape, PluginApiShape } from "../../src/openclaw-plugin/engine-types.js";
import { readCheckpointsOnDisk } from "../helpers/checkpoints.js";
import { SessionArchive } from "../../src/agents/archive/archive.js";

const KEY = "agent:main:telegram:direct:9";

function user(text: string, t: number): AgentMessage {
  return { role: "user", content: text, timestamp: t } as AgentMessage;
}
function assistant(text: string, t: number, input = 0): AgentMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "faux",
    provider: "faux",
    model: "faux",
    usage: { input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: t,
  } as AgentMessage;
}

type ToolFactory = (ctx: { sessionKey?: string; sessionId?: string }) => unknown;

async function setup(delegate: (p: CompactParams) => Promise<CompactResult>) {
  const stateDir = mkdtempSync(join(tmpdir(), "cm-ocplugin-"));
  let registered: { id: string; engine: ContextEngineShape } | null = null;
  const tools: Array<{ factory: ToolFactory; name?: string }> = [];
  const api: PluginApiShape = {
    id: "context-manager",
    pluginConfig: { stateDir },
    registerContextEngine: (id, factory) => {
      registered = { id, engine: factory({}) as ContextEngineShape };
    },
    registerTool: (factory, opts) => void tools.push({ factory: factory as ToolFactory, name: opts?.name }),
  };
  registerContextManagerPlugin(api, delegate);
  expect(registered).not.toBeNull();
  return { stateDir, tools, ...registered! };
}

describe("OpenClaw context-engine plugin", () => {
  it("has the entry shape OpenClaw's loader expects", () => {
    expect(plugin.id).toBe("context-manager");
    expect(typeof plugin.register).toBe("function");
  });

  it("gauge and 80% checkpoint, compaction checkpoint before the runtime compacts, restore on the successor, resume on /new", async () => {
    const calls: Array<{ params: CompactParams; checkpointsAtCall: string[] }> = [];
    let stateDirRef = "";
    const { id, engine, stateDir } = await setup(async (params) => {
      calls.push({ params, checkpointsAtCall: readCheckpointsOnDisk(stateDirRef, KEY).map((c) => c.meta.trigger) });
      return { ok: true, compacted: true, result: { tokensBefore: 1700, tokensAfter: 300, sessionId: "s1-successor" } };
    });
    stateDirRef = stateDir;
    expect(id).toBe("context-manager");
    expect(engine.info.ownsCompaction).toBe(false);

    const t = Date.now();
    const history = [user("Fix the parser in src/parse.ts", t), assistant("Working on the parser.", t + 1, 1700)];
    const assembled = await engine.assemble({ sessionId: "s1", sessionKey: KEY, messages: history, tokenBudget: 2000 });
    expect(assembled.messages.length).toBe(history.length + 1); // the gauge
    expect(JSON.stringify(assembled.messages.at(-1))).toMatch(/85%|8\d%/);
    expect(assembled.systemPromptAddition).toBeUndefined();

    await engine.afterTurn({ sessionId: "s1", sessionKey: KEY, sessionFile: "sqlite:main:s1:/tmp/s.db", messages: history, prePromptMessageCount: 0, tokenBudget: 2000 });
    expect(readCheckpointsOnDisk(stateDir, KEY).map((c) => c.meta.trigger)).toContain("auto-80pct");

    const result = await engine.compact({ sessionId: "s1", sessionKey: KEY, tokenBudget: 2000, currentTokenCount: 1700 });
    expect(result).toEqual({ ok: true, compacted: true, result: { tokensBefore: 1700, tokensAfter: 300, sessionId: "s1-successor" } });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.checkpointsAtCall.at(-1)).toBe("compaction");

    // the successor session gets the block of the checkpoint its predecessor wrote, for the whole turn
    const after = await engine.assemble({ sessionId: "s1-successor", sessionKey: KEY, messages: [user("Where were we?", t + 5)], tokenBudget: 2000 });
    expect(after.systemPromptAddition).toMatch(/^\[Post-compaction checkpoint restore\]/);
    expect(after.systemPromptAddition).toContain("parse.ts");
    const again = await engine.assemble({ sessionId: "s1-successor", sessionKey: KEY, messages: [user("Where were we?", t + 5)], tokenBudget: 2000 });
    expect(again.systemPromptAddition).toBe(after.systemPromptAddition);
    await engine.afterTurn({ sessionId: "s1-successor", sessionKey: KEY, sessionFile: "", messages: [user("Where were we?", t + 5), assistant("Here.", t + 6, 300)], prePromptMessageCount: 0, tokenBudget: 2000 });
    const later = await engine.assemble({ sessionId: "s1-successor", sessionKey: KEY, messages: [user("next", t + 7)], tokenBudget: 2000 });
    expect(later.systemPromptAddition).toBeUndefined();

    // a new session id on the same key (/new) resumes from the latest checkpoint
    const fresh = await engine.assemble({ sessionId: "s2", sessionKey: KEY, messages: [user("Hi again", t + 9)], tokenBudget: 2000 });
    expect(fresh.systemPromptAddition).toMatch(/^\[Session resume checkpoint restore\]/);
    await engine.dispose();
  });

  it("a session whose process died before any checkpoint: the next session's resume block shows its work (issue 11 item 7)", async () => {
    const delegate = async () => ({ ok: true, compacted: false }) as CompactResult;
    const first = await setup(delegate);
    const t = Date.now();
    const history = [user("Fix the parser in src/parse.ts", t), assistant("Working on the parser.", t + 1, 100)];
    await first.engine.assemble({ sessionId: "c1", sessionKey: KEY, messages: history, tokenBudget: 200_000 });
    await first.engine.afterTurn({ sessionId: "c1", sessionKey: KEY, sessionFile: "", messages: history, prePromptMessageCount: 0, tokenBudget: 200_000 });
    expect(readCheckpointsOnDisk(first.stateDir, KEY)).toHaveLength(0);
    // the process dies (no dispose); a new process registers the plugin on the same state dir
    let engine: ContextEngineShape | null = null;
    registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir: first.stateDir }, registerContextEngine: (_id, f) => void (engine = f({}) as ContextEngineShape) }, delegate);
    const fresh = await engine!.assemble({ sessionId: "c2", sessionKey: KEY, messages: [user("Hi again", t + 9)], tokenBudget: 200_000 });
    expect(fresh.systemPromptAddition).toMatch(/^\[Session resume checkpoint restore\]/);
    expect(fresh.systemPromptAddition).toContain("ended (crash, exit or /new) before a checkpoint held all its work");
    expect(fresh.systemPromptAddition).toContain("Fix the parser in src/parse.ts");
    const [cp] = readCheckpointsOnDisk(first.stateDir, KEY);
    expect(cp?.meta.session_id).toBe("c1");
    expect(cp?.recovered?.by_session_id).toBe("c2");
    await engine!.dispose();
  });

  it("a failed runtime compaction is returned as is and sends no restore", async () => {
    const { engine, stateDir } = await setup(async () => ({ ok: false, compacted: false, reason: "session not found" }));
    const t = Date.now();
    await engine.assemble({ sessionId: "x", sessionKey: KEY, messages: [user("a", t), assistant("b", t + 1, 100)], tokenBudget: 2000 });
    const r = await engine.compact({ sessionId: "x", sessionKey: KEY, currentTokenCount: 100 });
    expect(r).toEqual({ ok: false, compacted: false, reason: "session not found" });
    expect(readCheckpointsOnDisk(stateDir, KEY).at(-1)?.meta.trigger).toBe("compaction");
    const next = await engine.assemble({ sessionId: "x", sessionKey: KEY, messages: [user("a", t), assistant("b", t + 1, 100)], tokenBudget: 2000 });
    expect(next.systemPromptAddition).toBeUndefined();
  });

  it("compact() archives the last-seen history before the runtime compacts; what is kept is not archived twice", async () => {
    let archivedAtCall = -1;
    let stateDirRef = "";
    const { engine, stateDir, tools } = await setup(async () => {
      const a = new SessionArchive(stateDirRef, KEY);
      await a.load();
      archivedAtCall = a.size;
      return { ok: true, compacted: true, result: { tokensBefore: 1000, tokensAfter: 200 } };
    });
    stateDirRef = stateDir;
    const t = Date.now();
    const history: AgentMessage[] = [
      user("where is the ledger reconciled?", t),
      assistant("In ledger.ts: export function reconcileLedgerDrift(a, b) { return a - b; }", t + 1, 100),
      user("ok thanks", t + 2),
      assistant("You're welcome", t + 3, 120),
    ];
    await engine.assemble({ sessionId: "a1", sessionKey: KEY, messages: history, tokenBudget: 2000 });
    await engine.compact({ sessionId: "a1", sessionKey: KEY, currentTokenCount: 1000 });
    expect(archivedAtCall).toBe(4); // on disk before the runtime summarized
    const archive = new SessionArchive(stateDir, KEY);
    await archive.load();
    expect(archive.search("reconcileLedgerDrift")[0]!.record.text).toContain("reconcileLedgerDrift");
    // next compaction: the kept tail and new messages; the kept ones are deduplicated
    await engine.assemble({ sessionId: "a1", sessionKey: KEY, messages: [...history.slice(2), user("and the invoice?", t + 4)], tokenBudget: 2000 });
    await engine.compact({ sessionId: "a1", sessionKey: KEY, currentTokenCount: 1000 });
    const again = new SessionArchive(stateDir, KEY);
    await again.load();
    expect(again.size).toBe(5);

    // the agent's context_search (registered through the plugin tool API) finds it for this session key
    // (artifact_fetch, offload being on by default, comes as a plain tool object)
    const search = tools.filter((t) => t.name === "context_search");
    expect(search).toHaveLength(1);
    const tool = search[0]!.factory({ sessionKey: KEY, sessionId: "a1" }) as {
      name: string;
      execute: (id: string, params: unknown) => Promise<{ content: Array<{ text: string }> }>;
    };
    expect(tool.name).toBe("context_search");
    const res = await tool.execute("call-1", { query: "where is reconcileLedgerDrift?" });
    expect(res.content[0]!.text).toMatch(/^\d archived fragments?.*\n\[1\] .* assistant/);
    expect(res.content[0]!.text).toContain("reconcileLedgerDrift");
    const other = search[0]!.factory({ sessionKey: "agent:main:other", sessionId: "z" }) as typeof tool;
    expect((await other.execute("call-2", { query: "reconcileLedgerDrift" })).content[0]!.text).toMatch(/archive of compacted context is empty/);
  });

  it("a compaction the runtime ran by itself (in-attempt, no compact() call): checkpoint, archive and restore after the fact, once", async () => {
    const { engine, stateDir } = await setup(async () => ({ ok: true, compacted: true, result: { tokensBefore: 1000, tokensAfter: 200 } }));
    const t = Date.now();
    // histories as the runtime builds them: pi's SessionManager (OpenClaw's transcript) and its buildSessionContext
    const session = SessionManager.inMemory();
    const before: AgentMessage[] = [
      user("where is the ledger reconciled?", t),
      assistant("In ledger.ts: export function reconcileLedgerDrift(a, b) { return a - b; }", t + 1, 900),
      user("now fix the invoice rounding in src/invoice.ts", t + 2),
    ];
    const ids = before.map((m) => session.appendMessage(m as Parameters<typeof session.appendMessage>[0]));
    await engine.assemble({ sessionId: "r1", sessionKey: KEY, messages: session.buildSessionContext().messages, tokenBudget: 2000 });
    expect(readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.trigger === "compaction")).toHaveLength(0);
    // the attempt compacted inside the runtime: the history afterTurn gets starts with its summary
    session.appendCompaction("The user asked where the ledger is reconciled.", ids[2]!, 1500);
    session.appendMessage(assistant("Rounding fixed in src/invoice.ts.", t + 4, 400) as Parameters<typeof session.appendMessage>[0]);
    const compacted = session.buildSessionContext().messages;
    expect(compacted[0]!.role).toBe("compactionSummary");
    let summaries = 1;
    const summary = (n: number, at: number) => ({ role: "compactionSummary", summary: `summary ${n} of the work so far`, tokensBefore: 1500, timestamp: at }) as unknown as AgentMessage;
    await engine.afterTurn({ sessionId: "r1", sessionKey: KEY, sessionFile: "", messages: compacted, prePromptMessageCount: 2, tokenBudget: 2000 });
    const cps = readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.trigger === "compaction");
    expect(cps).toHaveLength(1);
    expect(cps[0]!.meta.session_id).toBe("r1");
    expect(JSON.stringify(cps[0]!.work?.requests)).toContain("where is the ledger reconciled?");
    const archive = new SessionArchive(stateDir, KEY);
    await archive.load();
    expect(archive.search("reconcileLedgerDrift")[0]!.record.text).toContain("reconcileLedgerDrift");
    // the next request carries the post-compaction restore, for that turn only
    const next = await engine.assemble({ sessionId: "r1", sessionKey: KEY, messages: [...compacted, user("and the tests?", t + 5)], tokenBudget: 2000 });
    expect(next.systemPromptAddition).toMatch(/^\[Post-compaction checkpoint restore\]/);
    expect(next.systemPromptAddition).toContain("compactions this session: 1");
    await engine.afterTurn({ sessionId: "r1", sessionKey: KEY, sessionFile: "", messages: [...compacted, user("and the tests?", t + 5), assistant("Added.", t + 6, 500)], prePromptMessageCount: 3, tokenBudget: 2000 });
    const later = await engine.assemble({ sessionId: "r1", sessionKey: KEY, messages: [...compacted, user("thanks", t + 7)], tokenBudget: 2000 });
    expect(later.systemPromptAddition).toBeUndefined();
    // its own compact() (/compact): the summary that follows is that one, not another to catch up on
    await engine.compact({ sessionId: "r1", sessionKey: KEY, currentTokenCount: 1000 });
    summaries++;
    const owed = await engine.assemble({ sessionId: "r1", sessionKey: KEY, messages: [summary(summaries, t + 8), user("go on", t + 9)], tokenBudget: 2000 });
    expect(owed.systemPromptAddition).toMatch(/^\[Post-compaction checkpoint restore\]/);
    expect(readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.trigger === "compaction")).toHaveLength(2);
    await engine.afterTurn({ sessionId: "r1", sessionKey: KEY, sessionFile: "", messages: [summary(summaries, t + 8), user("go on", t + 9), assistant("Going on.", t + 10, 300)], prePromptMessageCount: 1, tokenBudget: 2000 });
    // a restarted gateway: its first history starts with an old summary, which is no news
    let restarted: ContextEngineShape | null = null;
    registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir }, registerContextEngine: (_id, f) => void (restarted = f({}) as ContextEngineShape) }, async () => ({ ok: true, compacted: false }));
    const first = await restarted!.assemble({ sessionId: "r1", sessionKey: KEY, messages: [summary(summaries, t + 8), user("go on", t + 9)], tokenBudget: 2000 });
    expect(first.systemPromptAddition).toBeUndefined();
    expect(readCheckpointsOnDisk(stateDir, KEY).filter((c) => c.meta.trigger === "compaction")).toHaveLength(2);
  });

  it("disabled: messages pass through and compaction goes straight to the runtime", async () => {
    let delegated = 0;
    let engine: ContextEngineShape | null = null;
    registerContextManagerPlugin(
      { id: "context-manager", pluginConfig: { enabled: false }, registerContextEngine: (_id, f) => void (engine = f({}) as ContextEngineShape) },
      async () => {
        delegated++;
        return { ok: true, compacted: false };
      },
    );
    const msgs = [user("a", 1)];
    expect((await engine!.assemble({ sessionId: "d", messages: msgs, tokenBudget: 10 })).messages).toBe(msgs);
    await engine!.compact({ sessionId: "d", sessionKey: KEY });
    expect(delegated).toBe(1);
  });

  it("lifecycle calls with malformed parameters never throw into the host: the messages go through as given", async () => {
    const delegated: unknown[] = [];
    const { engine } = await setup(async (p) => {
      delegated.push(p);
      return { ok: true, compacted: false };
    });
    const t = Date.now();
    const sparse = new Array<AgentMessage>(3);
    sparse[2] = user("after the holes", t);
    const throwing = new Proxy([] as AgentMessage[], {
      get(target, p) {
        if (p === "length") return 3;
        if (typeof p === "string" && /^\d+$/.test(p)) throw new Error("proxy read");
        return Reflect.get(target, p);
      },
    });
    const cases: Array<[string, unknown]> = [
      ["no messages", { sessionId: "m1", sessionKey: KEY, tokenBudget: 200_000 }],
      ["null messages", { sessionId: "m1", sessionKey: KEY, messages: null, tokenBudget: 200_000 }],
      ["an object for messages", { sessionId: "m1", sessionKey: KEY, messages: { length: 5 }, tokenBudget: 200_000 }],
      ["a sparse array", { sessionId: "m2", sessionKey: KEY, messages: sparse, tokenBudget: 200_000 }],
      ["an array whose reads throw", { sessionId: "m3", sessionKey: KEY, messages: throwing, tokenBudget: 200_000 }],
      ["no parameters at all", undefined],
    ];
    for (const [what, params] of cases) {
      const r = await engine!.assemble(params as never);
      expect({ what, estimated: Number.isFinite(r.estimatedTokens) }).toEqual({ what, estimated: true });
      const given = (params as { messages?: unknown } | undefined)?.messages;
      if (Array.isArray(given)) expect(r.messages).toBe(given);
    }
    await expect(engine!.compact(undefined as never)).resolves.toEqual({ ok: true, compacted: false });
    expect(delegated).toEqual([undefined]);
  });
});
