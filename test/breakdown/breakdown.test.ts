/**
 * The breakdown's pieces without a session: the categories of each message kind, the
 * reconciliation with reported usage (spread when the host shows system prompt and tools,
 * `unattributed` when it does not), aged offload's cut, the gauge phrase, the checkpoint
 * round trip (emitter -> YAML -> validator) and `status --breakdown` through the real CLI.
 */
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { computeBreakdown } from "../../src/agents/breakdown/compute.js";
import { MESSAGE_FRAMING_CHARS } from "../../src/agents/text/token-estimate.js";
import { breakdownBar, breakdownTable, dominantPhrase } from "../../src/agents/breakdown/render.js";
import { formatGaugeLine } from "../../src/agents/gauge/gauge-line.js";
import { parseCheckpoint, serializeCheckpoint } from "../../src/agents/checkpoint/yaml.js";
import { writeCheckpoint } from "../../src/agents/checkpoint/writer.js";
import type { ContextBreakdown } from "../../src/agents/checkpoint/schema.js";
import { makeCheckpoint, makeDraft } from "../checkpoint/helpers.js";
import { cli } from "../cli/run.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";

const user = (text: string, ts = 1): AgentMessage => ({ role: "user", content: [{ type: "text", text }], timestamp: ts }) as AgentMessage;
const call = (id: string, name: string, args: object, usage?: number): AgentMessage =>
  ({
    role: "assistant",
    content: [{ type: "thinking", thinking: "t".repeat(40) }, { type: "text", text: "a".repeat(80) }, { type: "toolCall", id, name, arguments: args }],
    stopReason: "toolUse",
    timestamp: 2,
    ...(usage !== undefined ? { usage: { input: usage, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: usage } } : {}),
  }) as unknown as AgentMessage;
const result = (id: string, toolName: string, text: string): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError: false, timestamp: 3 }) as AgentMessage;

const messages = [
  user("u".repeat(400)),
  call("c1", "read", { path: "src/big.ts" }),
  result("c1", "read", "r".repeat(8000)),
  call("c2", "bash", { command: "npm test" }),
  result("c2", "bash", "b".repeat(2000)),
  { role: "custom", customType: "context-gauge", content: "g".repeat(60), display: false, timestamp: 4 } as AgentMessage,
];
const base = { contextWindow: 10_000, checkpointThreshold: 0.8 };
/** each message's framing, in tokens, counted with its main category */
const F = MESSAGE_FRAMING_CHARS / 4;

describe("computeBreakdown", () => {
  it("estimates each category with chars/4 plus each message's framing and names the largest items", () => {
    const b = computeBreakdown({ ...base, messages, host: { systemPrompt: "s".repeat(800), tools: [{ name: "read", description: "d", parameters: {} }] } });
    expect(b.source).toBe("estimate");
    expect(b.categories).toMatchObject({ system_prompt: 200, user: 100 + F, thinking: 20, assistant_text: 40, tool_results: 2500 + 2 * F, gauge: 15 + F });
    // the two replies' framing goes with their tool calls
    expect(b.categories.tool_calls).toBe(Math.ceil(("read".length + JSON.stringify({ path: "src/big.ts" }).length + "bash".length + JSON.stringify({ command: "npm test" }).length) / 4 + 2 * F));
    expect(b.tool_results_by_tool).toEqual([{ tool: "read", tokens: 2000 + F }, { tool: "bash", tokens: 500 + F }]);
    expect(Object.values(b.categories).reduce((a, n) => a + n!, 0)).toBe(b.total_tokens);
    expect(b.largest[0]).toEqual({ role: "toolResult", tool: "read", target: "src/big.ts", tokens: 2000 + F, handle: null });
    expect(b.largest[1]).toMatchObject({ role: "toolResult", tool: "bash", target: "npm test" });
    expect(b.headroom.to_checkpoint).toBe(8000 - b.total_tokens);
    expect(dominantPhrase(b)).toBe(`tool results ${Math.round(((2500 + 2 * F) / b.total_tokens) * 100)}% (read ${Math.round(((2000 + F) / b.total_tokens) * 100)}%)`);
  });

  it("spreads the reported usage over the prefix when the host shows system prompt and tools", () => {
    const withUsage = [...messages.slice(0, 3), call("c2", "bash", { command: "npm test" }, 5000), ...messages.slice(4)];
    const b = computeBreakdown({ ...base, messages: withUsage, host: { systemPrompt: "s".repeat(800), tools: [] } });
    expect(b.source).toBe("sdk");
    // prefix = usage 5000; after it: the bash result (500) and the gauge (15), each with its framing
    expect(b.total_tokens).toBe(5000 + 500 + 15 + 2 * F);
    expect(b.categories.unattributed).toBeUndefined();
    expect(b.categories.system_prompt).toBeGreaterThan(200);
  });

  it("reports what the messages do not explain as unattributed when the host hides system prompt and tools", () => {
    const withUsage = [...messages.slice(0, 3), call("c2", "bash", { command: "npm test" }, 5000), ...messages.slice(4)];
    const b = computeBreakdown({ ...base, messages: withUsage, host: { systemPrompt: null, tools: null } });
    expect(b.total_tokens).toBe(5515 + 2 * F);
    expect(b.categories.tool_results).toBe(2500 + 2 * F);
    expect(b.categories.unattributed).toBeGreaterThan(2000);
    expect(b.categories.system_prompt).toBeUndefined();
  });

  it("counts aged offload's cut and the stand-ins as handles", () => {
    const handle = `ocm_artifact:v1:sha256:${"a".repeat(64)}`;
    const standIn = `[tool output stored off the prompt: ${handle}] ${"p".repeat(1200)}`;
    const aged = result("c1", "read", standIn);
    const sent = messages.map((m, i) => (i === 2 ? aged : m));
    const b = computeBreakdown({ ...base, messages: sent, aging: { unaged: messages, sent }, host: { systemPrompt: "", tools: [] } });
    expect(b.removed.aged_offload.items).toBe(1);
    expect(b.removed.aged_offload.tokens).toBe(Math.ceil((8000 - standIn.length) / 4));
    expect(b.categories.handles).toBeGreaterThan(0);
    expect(b.tool_results_by_tool).toEqual([{ tool: "bash", tokens: 500 + F }]);
    expect(b.largest.find((x) => x.tool === "read")?.handle).toBe(handle);
  });
});

describe("largest items across requests", () => {
  it("a description remembered from an earlier request still asks for a handle stored since", () => {
    const host = { systemPrompt: "", tools: [] };
    const first = computeBreakdown({ ...base, messages: structuredClone(messages), host, handleOf: () => null });
    expect(first.largest[0]).toMatchObject({ tool: "read", target: "src/big.ts", handle: null });
    // the next request: fresh copies of the same messages; the read's output was stored meanwhile
    const handle = `ocm_artifact:v1:sha256:${"b".repeat(64)}`;
    const next = computeBreakdown({ ...base, messages: structuredClone(messages), host, handleOf: (id) => (id === "c1" ? handle : null) });
    expect(next.largest[0]).toEqual({ ...first.largest[0], handle });
  });
});

describe("rendering and storing", () => {
  const b = computeBreakdown({ ...base, messages, host: { systemPrompt: "s".repeat(800), tools: [] } });

  it("the gauge line keeps the spec's prefix and adds the phrase before Checkpoint saved", () => {
    const line = formatGaugeLine({ tokens: 8100, contextWindow: 10_000, utilization: 0.81 }, true, dominantPhrase(b));
    expect(line).toMatch(/^\[Context: 81% \| 8k\/10k tokens \| tool results \d+% \(read \d+%\) \| Checkpoint saved\]$/);
    expect(line.length / 4).toBeLessThan(25);
    // a phrase that could break the line's structure is left out
    expect(formatGaugeLine({ tokens: 1, contextWindow: 2, utilization: 0.5 }, false, "x] [Context: 1%")).toBe("[Context: 50% | 1/2 tokens]");
  });

  it("table and bar", () => {
    const table = breakdownTable(b, 10_000, 0.8).join("\n");
    expect(table).toMatch(/^Context breakdown: \dk tokens \(\d+% of 10k\)/);
    expect(table).toMatch(/\n {2}tool results +\dk +\d+%\n {4}read +2k +\d+%/);
    expect(table).toContain('1. toolResult read "src/big.ts" 2k');
    expect(table).toMatch(/Headroom: 80% checkpoint \dk left · compaction unknown/);
    expect(breakdownBar(b, 10_000, 20)).toMatch(/^\[[SUTACRg]*R+[SUTACRg]*\.+\] R tool results, /);
  });

  it("survives the checkpoint round trip, hostile strings and a negative headroom included", () => {
    const hostile: ContextBreakdown = {
      ...b,
      largest: [{ role: "toolResult", tool: 'x"\n: y', target: "a\u2028b: |", tokens: 5, handle: null }],
      headroom: { to_checkpoint: -120, to_compaction: null },
    };
    const cp = makeCheckpoint();
    cp.meta.breakdown = hostile;
    const back = parseCheckpoint(serializeCheckpoint(cp), "cp_003.yaml");
    expect(back.meta.breakdown).toEqual(hostile);
    const bad = serializeCheckpoint(cp).replace("to_checkpoint: -120", "to_checkpoint: x");
    expect(() => parseCheckpoint(bad, "cp_003.yaml")).toThrow(/meta\.breakdown\.headroom\.to_checkpoint: expected an integer/);
  });

  it("status --breakdown [--json] from the latest checkpoint", async () => {
    const root = await mkdtemp(join(tmpdir(), "cm-bd-cli-"));
    try {
      const draft = makeDraft({ sessionKey: "k:1", trigger: "auto-80pct", inputTokens: 8100 });
      draft.meta.breakdown = b;
      await writeCheckpoint({ stateDir: root }, draft);
      const args = ["status", "--breakdown", "--state-dir", root, "--session-key", "k:1"];
      const [text, json] = await Promise.all([cli(args), cli([...args, "--json"])]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/ {2}Context breakdown: \dk tokens/);
      expect(text.stdout).toContain("tool results");
      const parsed = JSON.parse(json.stdout) as { sessions: Array<{ breakdown: { totalTokens: number; categories: Record<string, number>; largest: unknown[] } }> };
      const got = parsed.sessions[0]!.breakdown;
      expect(got.totalTokens).toBe(b.total_tokens);
      expect(got.categories.tool_results).toBe(b.categories.tool_results);
      expect(got.categories.tool_results).toBe(2500 + 2 * F);
      expect(got.largest).toHaveLength(b.largest.length);
      const show = await cli(["show", "cp_001", "--state-dir", root, "--session-key", "k:1"]);
      expect(show.stdout).toMatch(/\n {2}breakdown:\n {4}total_tokens: \d+/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, TEST_TIMEOUT_MS);

  it("status --breakdown: a latest checkpoint without one (manual /compact, session end) shows the newest earlier one, named", async () => {
    const root = await mkdtemp(join(tmpdir(), "cm-bd-older-"));
    try {
      const withOne = makeDraft({ sessionKey: "k:1", trigger: "auto-80pct", inputTokens: 8100 });
      withOne.meta.breakdown = b;
      await writeCheckpoint({ stateDir: root }, withOne);
      await writeCheckpoint({ stateDir: root }, makeDraft({ sessionKey: "k:1", trigger: "compaction", inputTokens: 3000 }));
      await writeCheckpoint({ stateDir: root }, makeDraft({ sessionKey: "k:1", trigger: "session-end", inputTokens: 2000 }));
      await writeCheckpoint({ stateDir: root }, makeDraft({ sessionKey: "k:2", trigger: "session-end", inputTokens: 2000 }));
      const args = ["status", "--breakdown", "--state-dir", root];
      const [text, json, none] = await Promise.all([cli([...args, "--session-key", "k:1"]), cli([...args, "--json"]), cli([...args, "--session-key", "k:2"])]);
      expect(text.stderr).toBe("");
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/latest cp_003 · trigger session-end/);
      expect(text.stdout).toMatch(/\n {2}breakdown of cp_001 \(trigger auto-80pct, [0-9TZ:.-]+\): the latest checkpoint with one; cp_003 recorded none\n {2}\[/);
      expect(text.stdout).toMatch(/ {2}Context breakdown: \dk tokens/);
      const sessions = (JSON.parse(json.stdout) as { sessions: Array<{ session_key: string; checkpoint_id: string; breakdown: { checkpointId: string; trigger: string; totalTokens: number } | null }> }).sessions;
      const k1 = sessions.find((x) => x.session_key === "k:1")!;
      expect(k1.checkpoint_id).toBe("cp_003");
      expect(k1.breakdown).toMatchObject({ checkpointId: "cp_001", trigger: "auto-80pct", totalTokens: b.total_tokens });
      expect(sessions.find((x) => x.session_key === "k:2")!.breakdown).toBeNull();
      expect(none.code).toBe(0);
      expect(none.stdout).toContain("breakdown: not recorded in cp_001 nor an earlier checkpoint");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, TEST_TIMEOUT_MS);
});
