/**
 * The breakdown's per-key memories on a busy gateway (issue 27): the gauge phrase (what
 * dominates the window), what the latest requests aged and the tool call sizes outlive each
 * turn's engine, bounded by memory, not by a count of keys. With more chats than the old bound
 * (64 keys), a chat's next run still opens with the phrase on its first gauge line, its call
 * sizes still known (no call stringified again). Driven through the plugin's real entry.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { registerContextManagerPlugin } from "../../src/openclaw-plugin/index.js";
import type { ContextEngineShape } from "../../src/openclaw-plugin/engine-types.js";
import { sessionRegistry } from "../../src/agents/engine/cache-budget.js";
import { GAUGE_CUSTOM_TYPE } from "../../src/agents/messages/custom-types.js";
import { TEST_TIMEOUT_MS } from "../helpers/timeouts.js";
import { call, prose, result, user } from "./plugin-messages.js";

const WINDOW = 32_000;
/** more chats than the count bound this replaced (LruMap(64)) */
const CHATS = 100;

/** A chat at ~75% of the window: reads of files, so tool results dominate. */
function history(tag: string): AgentMessage[] {
  const out: AgentMessage[] = [user("Summarise the modules", 1)];
  for (let k = 0; k < 6; k++) out.push(call(`${tag}c${k}`, `src/mod${k}.ts`, 10 + 2 * k), result(`${tag}c${k}`, prose(4_000, `${tag}m${k}w`), 11 + 2 * k));
  out.push(user("and now?", 100));
  return out;
}

function instance(stateDir: string): ContextEngineShape {
  let engine: ContextEngineShape | null = null;
  // the gauge line as the last message of each request (under a prompt cache an anchored line keeps the text it was sent with)
  registerContextManagerPlugin({ id: "context-manager", pluginConfig: { stateDir, promptCache: "none" }, registerContextEngine: (_id, f) => void (engine = f({ workspaceDir: "/ws" }) as ContextEngineShape) }, async () => ({ ok: true, compacted: false }));
  return engine!;
}

/** One run of a chat: a new engine, one assemble; its gauge line (or ""). */
async function run(stateDir: string, key: string, messages: AgentMessage[]): Promise<string> {
  const e = instance(stateDir);
  const r = (await e.assemble({ sessionId: `s-${key}`, sessionKey: key, messages, tokenBudget: WINDOW })) as { messages: AgentMessage[] };
  // the phrase is computed after the request has gone out (setImmediate)
  await new Promise((done) => setImmediate(done));
  await new Promise((done) => setImmediate(done));
  await e.dispose();
  const gauge = r.messages.find((m) => (m as { customType?: string }).customType === GAUGE_CUSTOM_TYPE) as { content?: unknown } | undefined;
  return typeof gauge?.content === "string" ? gauge.content : JSON.stringify(gauge?.content ?? "");
}

describe("breakdown memories past the old count bound", () => {
  it(`a chat's next run has its phrase and its call sizes after ${CHATS} other chats`, async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "ocm-breakdown-keys-"));
    const key = (i: number) => `agent:main:telegram:direct:bk${i}`;
    // the memories' key: the state dir and the session key (engine/context-manager-engine.ts)
    const memo = (i: number) => `${stateDir}\u0000${key(i)}`;
    /** the chats whose memory holds `part` */
    const holding = (part: "phrase" | "aged" | "calls") => Array.from({ length: CHATS + 1 }, (_, i) => sessionRegistry().peek(memo(i))?.breakdown[part]).filter(Boolean).length;
    const h = history("a");
    // first run of chat 0: its gauge line has no phrase yet (computed after the request)
    const first = await run(stateDir, key(0), h);
    expect(first).toMatch(/\[Context: \d+%/);
    const phrase = sessionRegistry().peek(memo(0))?.breakdown.phrase?.text;
    expect(phrase).toMatch(/tool results \d+%/);
    const sized = sessionRegistry().peek(memo(0))!.breakdown.calls!.stringified;
    expect(sized).toBe(6);
    // the other chats, each with its own phrase, aged requests and call sizes
    for (let i = 1; i <= CHATS; i++) await run(stateDir, key(i), history(`o${i}`));
    expect(holding("phrase")).toBeGreaterThan(64);
    expect(holding("aged")).toBeGreaterThan(64);
    expect(holding("calls")).toBeGreaterThan(64);
    // chat 0's next run, a new engine: the first gauge line names what dominates, no call sized again
    const next = await run(stateDir, key(0), [...h, call("ac6", "src/mod6.ts", 101), result("ac6", "ok", 102)]);
    expect(next).toContain(phrase!);
    expect(sessionRegistry().peek(memo(0))!.breakdown.calls!.stringified).toBe(sized + 1);
  }, TEST_TIMEOUT_MS);
});
