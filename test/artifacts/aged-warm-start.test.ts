/**
 * A resumed session in a new process (pi `-c`, a restarted gateway): the aged-offload memory is
 * empty, so session_start judges the old results and calls off the request path, and the FIRST
 * request of the resumed session already carries them aged. Real AgentSession, faux provider,
 * a session pre-filled with tool rounds.
 */
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { Context } from "@mariozechner/pi-ai";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/host.js";
import { makeStandalone, type Standalone } from "../helpers/standalone.js";

const MARKER = "[tool output stored off the prompt:";
const ARG_MARKER = "[argument stored off the prompt:";
const log = (n: number) => `${Array.from({ length: 80 }, (_, i) => `round ${n} line ${i}: the parser keeps its state in plain objects`).join("\n")}\n`;

function prefilled(cwd: string, rounds: number): SessionManager {
  const sm = SessionManager.inMemory(cwd);
  const t = Date.now() - 60_000;
  const msg = (m: object) => sm.appendMessage(m as AgentMessage as never);
  msg({ role: "user", content: "read the logs and write the notes", timestamp: t });
  for (let n = 1; n <= rounds; n++) {
    const id = `call_${n}`;
    const call = n === 1 ? { name: "write", arguments: { path: "notes.md", content: log(0) } } : { name: "bash", arguments: { command: `cat r${n}.log` } };
    msg({ role: "assistant", content: [{ type: "toolCall", id, ...call }], api: "faux", provider: "faux", model: "faux", stopReason: "toolUse", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, timestamp: t + n * 2 });
    msg({ role: "toolResult", toolCallId: id, toolName: call.name, content: [{ type: "text", text: n === 1 ? "Successfully wrote notes.md" : log(n) }], isError: false, timestamp: t + n * 2 + 1 });
  }
  return sm;
}

describe("aged offload on a resumed session", () => {
  let s: Standalone;
  afterEach(() => s?.cleanup());

  it("the first request already carries the old results and calls aged", async () => {
    s = await makeStandalone({ contextWindow: 200_000, contextManager: { offload: true, offloadAgeTurns: 2 } });
    const seen: Context[] = [];
    s.agent.onChat((c) => seen.push(structuredClone({ messages: c.messages }) as Context));
    s.agent.queue(reply.text("resumed"));
    const session = await s.open(prefilled(s.cwd, 5));
    await s.prompt(session, "where were we?");
    expect(s.errors).toEqual([]);
    const first = JSON.stringify(seen[0]!.messages);
    // rounds 2-3 are followed by at least 2 assistant turns: aged; rounds 4-5 are the newest: whole
    expect(first.split(MARKER).length - 1).toBe(2);
    expect(first).toContain("round 5 line 40");
    expect(first).not.toContain("round 2 line 40");
    // the old write's content too
    expect(first).toContain(ARG_MARKER);
    expect(first).not.toContain("round 0 line 40");
  });
});
